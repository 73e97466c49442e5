// placeholder so the module library is never empty; removed once the module has sources
namespace parity { [[maybe_unused]] static int backend_anchor = 0; }

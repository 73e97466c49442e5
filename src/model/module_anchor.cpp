// placeholder so the module library is never empty; removed once the module has sources
namespace parity { [[maybe_unused]] static int model_anchor = 0; }

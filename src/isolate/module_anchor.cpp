// placeholder so the module library is never empty; removed once the module has sources
namespace parity { [[maybe_unused]] static int isolate_anchor = 0; }

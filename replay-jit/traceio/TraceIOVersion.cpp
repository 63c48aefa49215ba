// Keeps WSNTraceIO non-empty while the format library grows.
namespace wsn { const char *traceIOVersion() { return "1"; } }

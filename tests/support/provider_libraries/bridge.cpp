// The provider bridge a provider-library test lays out next to a copy of ONNX Runtime, named
// libonnxruntime_providers_shared.so: ORT loads it and looks up Provider_SetHost before it loads
// the EP's own library, so this one must load and have that symbol for ORT to get that far.
extern "C" __attribute__((visibility("default"))) void Provider_SetHost(void*) {}

// backend/ort/ort_handles.h: RAII owners for every ONNX Runtime object Parity creates.
//
// One unique_ptr alias per handle type, like ggml-cpp.h: the deleter carries the OrtApi table the
// object came from (a run may use an injected table in tests) and calls the matching Release*.
// Release functions accept null, so a moved-from or never-filled owner is harmless.
#pragma once

#include <memory>

#include "backend/ort/ort_api.h"

namespace parity::backend::ort {

inline void release(const OrtApi* api, OrtStatus* p) { api->ReleaseStatus(p); }
inline void release(const OrtApi* api, OrtEnv* p) { api->ReleaseEnv(p); }
inline void release(const OrtApi* api, OrtSessionOptions* p) { api->ReleaseSessionOptions(p); }
inline void release(const OrtApi* api, OrtSession* p) { api->ReleaseSession(p); }
inline void release(const OrtApi* api, OrtMemoryInfo* p) { api->ReleaseMemoryInfo(p); }
inline void release(const OrtApi* api, OrtValue* p) { api->ReleaseValue(p); }
inline void release(const OrtApi* api, OrtRunOptions* p) { api->ReleaseRunOptions(p); }
inline void release(const OrtApi* api, OrtTensorTypeAndShapeInfo* p) {
  api->ReleaseTensorTypeAndShapeInfo(p);
}
inline void release(const OrtApi* api, OrtCUDAProviderOptionsV2* p) { api->ReleaseCUDAProviderOptions(p); }
inline void release(const OrtApi* api, OrtTensorRTProviderOptionsV2* p) {
  api->ReleaseTensorRTProviderOptions(p);
}

template <class T>
struct Releaser {
  const OrtApi* api = nullptr;
  void operator()(T* p) const {
    if (p != nullptr && api != nullptr) release(api, p);
  }
};

// An owned ORT object.
template <class T>
using Owned = std::unique_ptr<T, Releaser<T>>;

// A string ORT allocated with an OrtAllocator (input/output names, the profile file name);
// freed with AllocatorFree on the same allocator. The default allocator is process-lived.
struct AllocatorFreer {
  const OrtApi* api = nullptr;
  OrtAllocator* allocator = nullptr;
  void operator()(char* p) const {
    if (p == nullptr || api == nullptr || allocator == nullptr) return;
    // AllocatorFree reports failure as a status; nothing useful can be done with it in a deleter.
    if (OrtStatus* s = api->AllocatorFree(allocator, p)) api->ReleaseStatus(s);
  }
};
using AllocatedString = std::unique_ptr<char, AllocatorFreer>;

// The array GetAvailableProviders returns; freed with ReleaseAvailableProviders.
class ProviderList {
 public:
  ProviderList() = default;
  ProviderList(const OrtApi* api, char** names, int count) : api_(api), names_(names), count_(count) {}
  ~ProviderList() { reset(); }
  ProviderList(ProviderList&& o) noexcept : api_(o.api_), names_(o.names_), count_(o.count_) {
    o.names_ = nullptr;
  }
  ProviderList& operator=(ProviderList&& o) noexcept {
    if (this != &o) {
      reset();
      api_ = o.api_;
      names_ = o.names_;
      count_ = o.count_;
      o.names_ = nullptr;
    }
    return *this;
  }
  ProviderList(const ProviderList&) = delete;
  ProviderList& operator=(const ProviderList&) = delete;

  int size() const { return names_ ? count_ : 0; }
  const char* at(int i) const { return names_[i]; }

 private:
  void reset() {
    if (names_ != nullptr && api_ != nullptr)
      if (OrtStatus* s = api_->ReleaseAvailableProviders(names_, count_)) api_->ReleaseStatus(s);
    names_ = nullptr;
  }
  const OrtApi* api_ = nullptr;
  char** names_ = nullptr;
  int count_ = 0;
};

}  // namespace parity::backend::ort

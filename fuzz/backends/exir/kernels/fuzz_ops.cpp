// ExecuTorch runtime kernels for the harness's own custom ops (fuzz/custom_ops.py), so
// that a program holding one runs on the pip runtime and its results are compared with
// eager like any other program's. Without them such programs got static checks only.
//
// Each kernel is the `.out` overload the lowering plans (ToOutVarPass): it resizes its
// planned output to the size it computes (an unbacked size: the planner gave the output
// its upper bound) and fails the call, as ExecuTorch's own kernels do, when that size
// does not fit. Semantics are those of the Python kernels, element for element:
//
//   positive(x)         the entries of x.reshape(-1) that are > 0
//   positive_head(x, k) the first k of those
//   split_sign(x)       those, and the others (NaN included), in order
//   head(x, n)          the first n entries of x.reshape(-1), zero-padded to n
//   bmul(a, b)          a * b, broadcast, both cast to the output's dtype first
//
// Inputs are read through their strides (x.reshape(-1) is the logical row-major order
// whatever the dim order), and bmul writes its output through its strides too.
// Built and loaded by fuzz/backends/exir/kernels/__init__.py.

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <cstdint>
#include <vector>

namespace {

using executorch::aten::ScalarType;
using executorch::aten::SizesType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

// Byte offset of the n-th element in logical row-major order.
int64_t element_offset(const Tensor& t, int64_t n) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t size = t.size(d);
    offset += (n % size) * t.strides()[d];
    n /= size;
  }
  return offset;
}

template <typename T>
double as_double(T v) {
  return static_cast<double>(v);
}

// Calls f.template operator()<CTYPE>() for the tensor dtypes the generator draws.
template <typename F>
bool switch_dtype(ScalarType dtype, F&& f) {
  switch (dtype) {
    case ScalarType::Bool:
      f(bool{});
      return true;
    case ScalarType::Byte:
      f(uint8_t{});
      return true;
    case ScalarType::Char:
      f(int8_t{});
      return true;
    case ScalarType::Short:
      f(int16_t{});
      return true;
    case ScalarType::Int:
      f(int32_t{});
      return true;
    case ScalarType::Long:
      f(int64_t{});
      return true;
    case ScalarType::Half:
      f(executorch::aten::Half{});
      return true;
    case ScalarType::BFloat16:
      f(executorch::aten::BFloat16{});
      return true;
    case ScalarType::Float:
      f(float{});
      return true;
    case ScalarType::Double:
      f(double{});
      return true;
    default:
      return false;
  }
}

// The boxed calling convention of ExecuTorch's generated kernels (codegen/gen.py): the
// arguments, out arguments included, then one return slot, which an out variant leaves
// alone (its results are the out arguments).
bool stack_holds(KernelRuntimeContext& ctx, Span<EValue*> stack, size_t arguments) {
  if (stack.size() != arguments + 1) {
    ET_LOG(Error, "fuzz kernel: expected %zu arguments, got %zu", arguments + 1, stack.size());
    ctx.fail(Error::InvalidProgram);
    return false;
  }
  return true;
}

bool resize_1d(KernelRuntimeContext& ctx, Tensor& out, int64_t n) {
  SizesType size[1] = {static_cast<SizesType>(n)};
  if (executorch::runtime::resize_tensor(out, {size, 1}) != Error::Ok) {
    ET_LOG(Error, "fuzz kernel: cannot resize the output to %lld elements", (long long)n);
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  return true;
}

// The entries of x (row-major) that are > 0 (positive) or not (!positive), first `limit`.
template <typename T>
void select_sign(const Tensor& x, bool positive, int64_t limit, std::vector<T>& kept) {
  const char* base = reinterpret_cast<const char*>(x.const_data_ptr());
  const int64_t n = x.numel();
  for (int64_t i = 0; i < n && static_cast<int64_t>(kept.size()) < limit; ++i) {
    const T v = *reinterpret_cast<const T*>(base + element_offset(x, i) * sizeof(T));
    if ((as_double(v) > 0) == positive) {
      kept.push_back(v);
    }
  }
}

bool write_selected(KernelRuntimeContext& ctx, const Tensor& x, bool positive, int64_t limit,
                    Tensor& out) {
  if (out.scalar_type() != x.scalar_type()) {
    ET_LOG(Error, "fuzz kernel: output dtype differs from the input's");
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  bool ok = true;
  const bool known = switch_dtype(x.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> kept;
    select_sign<T>(x, positive, limit, kept);
    if (!resize_1d(ctx, out, static_cast<int64_t>(kept.size()))) {
      ok = false;
      return;
    }
    T* dst = out.mutable_data_ptr<T>();
    for (size_t i = 0; i < kept.size(); ++i) {
      dst[i] = kept[i];
    }
  });
  if (!known) {
    ET_LOG(Error, "fuzz kernel: unsupported dtype %d", static_cast<int>(x.scalar_type()));
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  return ok;
}

// fuzz::positive.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)
void positive_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!stack_holds(ctx, stack, 2)) {
    return;
  }
  const Tensor& x = stack[0]->toTensor();
  Tensor& out = stack[1]->toTensor();
  write_selected(ctx, x, true, x.numel(), out);
}

// fuzz::positive_head.out(Tensor x, int k, *, Tensor(a!) out) -> Tensor(a!)
void positive_head_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!stack_holds(ctx, stack, 3)) {
    return;
  }
  const Tensor& x = stack[0]->toTensor();
  const int64_t k = stack[1]->toInt();
  Tensor& out = stack[2]->toTensor();
  write_selected(ctx, x, true, k < 0 ? 0 : k, out);
}

// fuzz::split_sign.out(Tensor x, *, Tensor(a!) pos, Tensor(b!) nonpos) -> (Tensor(a!), Tensor(b!))
void split_sign_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!stack_holds(ctx, stack, 3)) {
    return;
  }
  const Tensor& x = stack[0]->toTensor();
  Tensor& pos = stack[1]->toTensor();
  Tensor& nonpos = stack[2]->toTensor();
  if (write_selected(ctx, x, true, x.numel(), pos)) {
    write_selected(ctx, x, false, x.numel(), nonpos);
  }
}

// fuzz::head.out(Tensor x, SymInt n, *, Tensor(a!) out) -> Tensor(a!)
void head_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!stack_holds(ctx, stack, 3)) {
    return;
  }
  const Tensor& x = stack[0]->toTensor();
  const int64_t n = stack[1]->toInt();
  Tensor& out = stack[2]->toTensor();
  if (n < 0 || out.scalar_type() != x.scalar_type()) {
    ET_LOG(Error, "fuzz kernel: head of %lld elements or a dtype mismatch", (long long)n);
    ctx.fail(Error::InvalidArgument);
    return;
  }
  if (!resize_1d(ctx, out, n)) {
    return;  // (resize_1d logged it and failed the context)
  }
  const bool known = switch_dtype(x.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const char* base = reinterpret_cast<const char*>(x.const_data_ptr());
    T* dst = out.mutable_data_ptr<T>();
    const int64_t have = x.numel();
    for (int64_t i = 0; i < n; ++i) {
      dst[i] = i < have ? *reinterpret_cast<const T*>(base + element_offset(x, i) * sizeof(T))
                        : static_cast<T>(0);
    }
  });
  if (!known) {
    ET_LOG(Error, "fuzz kernel: unsupported dtype %d", static_cast<int>(x.scalar_type()));
    ctx.fail(Error::InvalidArgument);
  }
}

// One operand's element (broadcast: its size-1 and missing leading dims repeat) as OUT.
template <typename OUT>
OUT broadcast_element(const Tensor& t, const std::vector<int64_t>& index, int64_t rank) {
  int64_t offset = 0;
  const int64_t lead = rank - t.dim();
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t i = t.size(d) == 1 ? 0 : index[lead + d];
    offset += i * t.strides()[d];
  }
  OUT value{};
  switch_dtype(t.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T v = reinterpret_cast<const T*>(t.const_data_ptr())[offset];
    value = static_cast<OUT>(v);
  });
  return value;
}

template <typename OUT>
OUT multiply(OUT a, OUT b) {
  if constexpr (std::is_same_v<OUT, bool>) {
    return a && b;
  } else if constexpr (std::is_integral_v<OUT>) {
    // Wraps as eager does (two's complement), without signed overflow.
    return static_cast<OUT>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else if constexpr (std::is_same_v<OUT, float> || std::is_same_v<OUT, double>) {
    return a * b;
  } else {  // Half, BFloat16: in float, rounded once, as eager's CPU kernel does
    return static_cast<OUT>(static_cast<float>(a) * static_cast<float>(b));
  }
}

// fuzz::bmul.out(Tensor a, Tensor b, *, Tensor(a!) out) -> Tensor(a!)
void bmul_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  if (!stack_holds(ctx, stack, 3)) {
    return;
  }
  const Tensor& a = stack[0]->toTensor();
  const Tensor& b = stack[1]->toTensor();
  Tensor& out = stack[2]->toTensor();
  const int64_t rank = a.dim() > b.dim() ? a.dim() : b.dim();
  std::vector<SizesType> shape(rank, 1);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t da = d - (rank - a.dim()), db = d - (rank - b.dim());
    const int64_t sa = da >= 0 ? a.size(da) : 1, sb = db >= 0 ? b.size(db) : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      ET_LOG(Error, "fuzz kernel: bmul operands do not broadcast");
      ctx.fail(Error::InvalidArgument);
      return;
    }
    shape[d] = static_cast<SizesType>(sa == 1 ? sb : sa);
  }
  if (executorch::runtime::resize_tensor(out, {shape.data(), shape.size()}) != Error::Ok) {
    ET_LOG(Error, "fuzz kernel: cannot resize the bmul output");
    ctx.fail(Error::InvalidArgument);
    return;
  }
  const bool known = switch_dtype(out.scalar_type(), [&](auto tag) {
    using OUT = decltype(tag);
    char* base = reinterpret_cast<char*>(out.mutable_data_ptr());
    std::vector<int64_t> index(rank, 0);
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = i;
      for (int64_t d = rank - 1; d >= 0; --d) {
        index[d] = rest % shape[d];
        rest /= shape[d];
      }
      const OUT value =
          multiply<OUT>(broadcast_element<OUT>(a, index, rank), broadcast_element<OUT>(b, index, rank));
      *reinterpret_cast<OUT*>(base + element_offset(out, i) * sizeof(OUT)) = value;
    }
  });
  if (!known) {
    ET_LOG(Error, "fuzz kernel: unsupported dtype %d", static_cast<int>(out.scalar_type()));
    ctx.fail(Error::InvalidArgument);
  }
}

const Kernel kKernels[] = {
    Kernel("fuzz::positive.out", positive_out),
    Kernel("fuzz::positive_head.out", positive_head_out),
    Kernel("fuzz::split_sign.out", split_sign_out),
    Kernel("fuzz::head.out", head_out),
    Kernel("fuzz::bmul.out", bmul_out),
};

}  // namespace

// Called by the loader once the library is in the process (not at load time: a failed
// registration is then an error the loader reports, not an abort in a static initializer).
extern "C" int fuzz_register_kernels() {
  const Error err = executorch::runtime::register_kernels({kKernels, sizeof(kKernels) / sizeof(Kernel)});
  return static_cast<int>(err);
}

"""The native stack of a dying process (fuzz.native_stack): the handler keeps a death a
death, and the kernel it names maps to the program's op."""

from __future__ import annotations

import shutil
import signal
import sys

import pytest

from fuzz.native_stack import BEGIN, END, died_in, kernel_op
from fuzz.procs import child_env, crash_site, run_isolated

# The shape of a real stack (amax over an empty operand, ExecuTorch 1.5.1's pip runtime),
# addresses and most frames cut: the innermost kernel frame is amax_out, below abort's.
LIB = "/venv/site-packages/executorch/lib"
AMAX_ABORT = f"""[reduce_util.h:533] In function MapReduceOverDimListPlan(), assert failed
{BEGIN}
{LIB}/fuzz-harness/native-stack-0.so(+0x11a2)[0x7f42a5d643a2]
/lib/x86_64-linux-gnu/libc.so.6(abort+0xd3)[0x7f42c6a44472]
{LIB}/libexecutorch.so(_ZN10executorch7runtime9pal_abortEv+0xa)[0x7f42a5d78a2a]
{LIB}/libexecutorch_kernels_optimized.so(_ZN5torch8executor6native5utils3fooEv+0x1)[0x1]
{LIB}/libexecutorch_kernels_optimized.so(_ZN5torch8executor6native8amax_outERN10executorch7runtime20KernelRuntimeContextERKNS3_7etensor6TensorENS3_8ArrayRefIlEEbRS7_+0x160)[0x7f429e88a2a0]
{LIB}/libexecutorch.so(_ZN10executorch7runtime6Method19execute_instructionEv+0x5ef)[0x7f]
{END}
Fatal Python error: Aborted
"""

SEGFAULT = (
    "import ctypes\n"
    "from fuzz.native_stack import install\n"
    "why = install()\n"
    "assert why == '', why\n"
    "print('RUNNING', flush=True)\n"
    "ctypes.string_at(0)\n"
)


def test_the_innermost_kernel_frame_names_where_the_process_died():
    assert died_in(AMAX_ABORT) == "amax_out"  # not the utils helper, not the runtime
    assert died_in("Fatal Python error: Aborted\n") is None  # no native stack printed
    no_kernel = f"{BEGIN}\n/lib/libc.so.6(abort+0xd3)[0x1]\n{END}\n"
    assert died_in(no_kernel) is None


@pytest.mark.parametrize(
    "kernel, ops, op",
    [
        ("amax_out", ["aten.amax.default", "aten.amax.default:float32"], "aten.amax.default"),
        (
            "index_put_out",
            ["aten.index.Tensor", "aten.index_put.default"],
            "aten.index_put.default",
        ),
        ("index_Tensor_out", ["aten.index.Tensor", "aten.mul.Tensor"], "aten.index.Tensor"),
        ("opt_mul_out", ["aten.mul.Scalar", "aten.mul.Tensor"], "aten.mul.Tensor"),
        ("mul_scalar_out", ["aten.mul.Scalar", "aten.mul.Tensor"], "aten.mul.Scalar"),
        (
            "_to_dim_order_copy_out",
            ["dim_order_ops._to_dim_order_copy.default"],
            "dim_order_ops._to_dim_order_copy.default",
        ),
        ("topk_values", ["aten.topk.default"], "aten.topk.default"),
        ("gather_out", ["aten.mul.Tensor"], None),  # the program holds no gather
    ],
)
def test_a_kernel_maps_to_the_program_op_it_implements(kernel, ops, op):
    assert kernel_op(kernel, ops) == op


@pytest.mark.skipif(
    not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler: no native stacks"
)
def test_the_handler_prints_the_native_stack_and_the_process_still_dies_by_its_signal():
    printed: list[str] = []
    rc, hung = run_isolated([sys.executable, "-c", SEGFAULT], child_env(), 60, errors=printed)
    assert (rc, hung) == (-signal.SIGSEGV, False)
    stderr = printed[0]
    assert BEGIN in stderr and END in stderr
    # faulthandler's dump still follows: the Python frame where it died is read as before
    assert stderr.index(END) < stderr.index("Fatal Python error: Segmentation fault")
    assert crash_site(stderr)["at"] == "ctypes/__init__.py:string_at"
    assert died_in(stderr) is None  # it died in libc, not in an ExecuTorch kernel

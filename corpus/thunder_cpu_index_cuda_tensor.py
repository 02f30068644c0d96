"""Known upstream bug (Thunder 0.2.6, CUDA only): indexing a CUDA tensor with an index
made on the CPU raises, where PyTorch accepts it.

`x[torch.arange(n) % x.shape[0]]` with `x` on CUDA: `torch.arange(n)` with no `device` is
a CPU tensor, and PyTorch's advanced indexing takes indices on the CPU or on the indexed
tensor's device (aten's `check_indices_on_cpu_or_selfdevice`, "Only allow:
`dev_tensor[{cpu,dev}_tensor]`", pytorch/pytorch#69607; the CPU index is moved over).
Thunder traces the index to its `take` prim, whose meta calls `check_same_device(a,
index)` (thunder/core/prims.py): "RuntimeError: Devices were expected to be the same, but
got devices thunder.devices.Device(type='cuda', index=0) and
thunder.devices.Device(type='cpu')!" (thunder.crash at every call; the default cache
fails alike). On the CPU the two devices agree and nothing shows. Models write
`arange(n)` without `device=` in position and index code often enough: eager and
torch.compile run it.

Found by the CUDA nightly on the device machine (2026-12-04, torch 2.11.0, executorch
1.2.0, lightning-thunder 0.2.6 carried as wheels), in a program of `index_tensor_number`
(fuzz/ops/indexing.py). Registered from that run's case file: the CPU machines cannot
run it, so its item runs only where CUDA is (`pytest -k cuda`).
"""

import torch


def program(x, n):
    return (x[torch.remainder(torch.arange(n), x.shape[0])],)


def calls():
    return [(torch.randn(2, 3), 3), (torch.randn(2, 3), 0)]


LANES = ("thunder",)
DEVICES = ("cuda",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.11.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): Thunder's
# device check naming a CUDA device and the CPU, in either order.
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"Devices were expected to be the same, but got devices "
        r"thunder\.devices\.Device\(type='(cuda', index=\d+\) and "
        r"thunder\.devices\.Device\(type='cpu'|cpu'\) and thunder\.devices\.Device\(type='cuda')",
        "facts": {"error_type": "RuntimeError"},
    },
)
# Searched the issue index for "thunder \"Devices were expected to be the same\" index cuda
# tensor with cpu index tensor", "lightning-thunder indexing cuda tensor with cpu index
# tensor devices expected to be the same", "Lightning-AI lightning-thunder getitem advanced
# indexing index tensor on cpu while tensor on cuda check_same_device" and "thunder jit
# index_select take cpu index cuda tensor": no Thunder report found (the results are
# PyTorch's own history of CPU indices for CUDA tensors: pytorch/pytorch#5583, #69607).
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = "Indexing a CUDA tensor with a CPU index tensor raises a device mismatch; PyTorch allows it"
DESCRIBE = """
PyTorch's advanced indexing accepts index tensors that are on the CPU or on the indexed
tensor's device (`check_indices_on_cpu_or_selfdevice`, "Only allow:
`dev_tensor[{cpu,dev}_tensor]`", pytorch/pytorch#69607). So `x[torch.arange(n) %
x.shape[0]]` works for a CUDA `x` even though `torch.arange(n)` without `device=` is on
the CPU. Thunder lowers this indexing to its `take` prim, whose meta calls
`utils.check_same_device(a, index)` (thunder/core/prims.py:3499-3503 in 0.2.6, same on
main), and fails with "RuntimeError: Devices were expected to be the same, but got
devices thunder.devices.Device(type='cuda', index=0) and
thunder.devices.Device(type='cpu')!". Only `__getitem__`-style indexing should accept a
CPU index, because eager `torch.index_select` also rejects mixed devices. The
`__getitem__` path could move a CPU index to the tensor's device before calling `take`.
"""
RELATED = (
    "https://github.com/pytorch/pytorch/pull/69607",
    "https://github.com/pytorch/pytorch/pull/5583",
    "https://github.com/Lightning-AI/lightning-thunder/issues/1084",
)
# Searched again on 2026-12-06 (issue and code indexes): "thunder Devices were expected
# to be the same cuda tensor indexed with cpu index tensor take check_same_device";
# "lightning-thunder advanced indexing getitem index tensor on cpu while input on cuda
# RuntimeError devices"; "pytorch check_indices_on_cpu_or_selfdevice Only allow
# dev_tensor[{cpu,dev}_tensor]". Found: no report of this bug.

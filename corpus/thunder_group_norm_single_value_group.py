"""Known upstream bug (Thunder 0.2.6, any cache): `torch.group_norm` raises on one value per group.

`torch.group_norm(x, 1, eps=1e-05)` of a (1, 1) tensor. The ATen op `torch.group_norm`
normalizes a group holding a single value to 0 (eager returns `[[0.]]`). Thunder registers
`torch.group_norm` and `torch.nn.functional.group_norm` as one symbol
(thunder/torch/__init__.py, `group_norm`: `@torchsymbol(torch.group_norm,
torch.nn.functional.group_norm, id="torch.nn.functional.group_norm")`), and its torch
executor runs that symbol as `torch.nn.functional.group_norm` (thunder/executors/torchex.py,
`group_norm = _register_torch_operation("group_norm", module=torch.nn.functional)`, added
in PR 815, 2023). The Python wrapper `F.group_norm` (torch/nn/functional.py) first calls
`_verify_batch_size([N * C // G, G, *spatial])`, batch_norm's training check, which raises
when `numel == G`: one sample and one value per group. So Thunder raises "ValueError:
Expected more than 1 value per channel when training, got input size [1, 1]" from its
computation trace (`t = torch.nn.functional.group_norm(x, 1, None, None, 1e-05)`), where
eager's `torch.group_norm` returned zeros (thunder.crash at call[0]; the default cache and
the stock stacks give the same; the symbolic cache plays no part). Failing shapes: (1, 1)
with 1 group, (1, 3) with 3 groups, (1, 2, 1) with 2 groups, (1, 1, 1, 1) with 1 group;
(2, 1), (1, 4) with 2 groups, (1, 1, 3) and empty inputs run and match eager. Programs that
call `F.group_norm` or `nn.GroupNorm` (even in eval mode) get the same ValueError in eager,
so they do not diverge: the check is torch's own quirk (a batch_norm message from an op
without a training mode), which Thunder adds to the ATen op. Thunder main (2026-01-29,
1e22aac) has the same registration. Found by a fixes-on 1,000-program nightly (seed 2026,
finding thunder_crash_5f02f565: `torch.group_norm(torch.relu(x1), 1, eps=1e-05)` of a
(1, 1) input, among seven other ops); the generator's `group_norm` op (fuzz/ops/norms.py)
calls `torch.group_norm` precisely because F refuses one value per group.
"""

import torch


def program(x):
    return (torch.group_norm(x, 1, eps=1e-05),)


def calls():
    return [(torch.randn(1, 1),)]


LANES = ("thunder",)
EXPECT = ("thunder.crash",)
VERSIONS = {"torch": "2.13.0", "lightning-thunder": "0.2.6"}  # the stack EXPECT was registered on
# What identifies this bug in a divergence of any program (fuzz/known.py): F.group_norm's
# batch-size check raised in a program that calls the ATen op torch.group_norm (eager's
# torch.group_norm has no such check). Thunder raised while running its trace, so there is
# no "at" fact naming the op; the program's call is in its source.
MATCHES = (
    {
        "kind": "thunder.crash",
        "details": r"ValueError: Expected more than 1 value per channel when training",
        "facts": {"error_type": "ValueError"},
        "source": r"\btorch\.group_norm\(",
    },
)
# Searched the issue index for "thunder group_norm Expected more than 1 value per channel
# when training" and "lightning-thunder group_norm torch executor single element group", and
# find_string "Expected more than 1 value per channel when train": only user reports of
# batch_norm with a batch of 1 in other projects; no Thunder report.
UPSTREAM = None
CLASS = "bug"

# For the upstream tracker (python -m fuzz repro writes ISSUE.md from these):
TITLE = 'torch.group_norm raises "Expected more than 1 value per channel" under thunder.jit'
DESCRIBE = """
`torch.group_norm(x, 1, eps=1e-05)` of a (1, 1) tensor returns `[[0.]]` in eager mode,
but under `thunder.jit` it raises `ValueError: Expected more than 1 value per channel
when training, got input size [1, 1]`. Thunder registers `torch.group_norm` and
`torch.nn.functional.group_norm` as one symbol (`thunder/torch/__init__.py`,
`@torchsymbol(torch.group_norm, torch.nn.functional.group_norm,
id="torch.nn.functional.group_norm")`), and the torch executor runs that symbol as
`torch.nn.functional.group_norm` (`thunder/executors/torchex.py`,
`_register_torch_operation("group_norm", module=torch.nn.functional)`). The Python
wrapper `F.group_norm` first calls `_verify_batch_size([N * C // G, G, ...])`, which
raises when each group holds a single value; the ATen op `torch.group_norm` has no such
check. So every shape with one value per group and batch 1 fails: (1, 1) with 1 group,
(1, 3) with 3 groups, (1, 2, 1) with 2 groups. Calls to `F.group_norm` or `nn.GroupNorm`
raise the same error in eager mode, so they are unaffected; only the `torch.group_norm`
spelling picks up a check it does not have. Running the symbol with `torch.group_norm`
(which `F.group_norm` itself calls after its check) would keep both spellings right.
"""
RELATED = ("https://github.com/pytorch/pytorch/pull/33008",)
# Searched again on 2026-12-06 (issue and code indexes): "thunder group_norm Expected
# more than 1 value per channel when training"; "torch.group_norm vs F.group_norm
# _verify_batch_size num_groups equals numel"; "lightning-thunder group_norm torch
# executor ValueError single sample". Found: no report of this bug.

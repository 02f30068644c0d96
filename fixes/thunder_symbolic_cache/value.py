"""Reads of `NumberProxy.value`: the `.value` descriptor that logs them as decisions.

Some Thunder code reads `proxy.value` directly (`utils.check_no_duplicates`, `pyval`, ...)
and branches on it. While a trace is being recorded, `_RecordedValue` (installed as
`NumberProxy.value`) logs such a read as a "value" decision, unless the reader only
propagates the value into a new proxy or prints it: the code objects in `_BENIGN_CODES`
(the proxy classes' own methods, and the prim metas that compute a new number proxy's
value, whose output is itself recorded as an expression). Helpers in
`_PASS_THROUGH_CODES` (`proxies.pyval`, `utils.get_numberlike_value`) just hand the value
to their caller, which is judged instead.

Plain Python reads go through the descriptor's `__get__`; reads in code that Thunder's
interpreter runs reach `__get__` through the interpreter, which is looked aside to
`_interpreted_value_get`, so the reader is the interpreted frame (not the interpreter's
own). Both sets are filled by `patches.install()` from the original, unpatched code
objects and emptied again by `patches.uninstall()`. Reads of
`proxy.__dict__["value"]` are not seen.
"""

from __future__ import annotations

import sys

from fixes.thunder_symbolic_cache.recorder import _current

# Code that reads a proxy's value only to propagate it into a new proxy (or to print it)
# is not a decision. `_PASS_THROUGH` functions just hand the value to their caller, which
# is judged instead.
_BENIGN_CODES: set = set()
_PASS_THROUGH_CODES: set = set()


def _codes_of(obj) -> set:
    out = set()
    code = getattr(obj, "__code__", None)
    stack = [code] if code is not None else []
    while stack:
        c = stack.pop()
        out.add(c)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_code"))
    return out


def _benign_code_objects(prims, NumberProxy) -> set:
    """The code objects whose reads of `.value` are not decisions (see the docstring).
    Collected before anything is patched: the original methods' code."""
    codes = set()
    # The proxy classes' own methods: repr/type_string/replace/known_value, the helpers
    # (their results are recorded as expressions) and the conversions (recorded).
    for cls in NumberProxy.__mro__ + tuple(NumberProxy.__subclasses__()):
        for v in vars(cls).values():
            codes |= _codes_of(getattr(v, "__func__", v))
    # Prim metas that compute a new number proxy's value from their inputs' values: the
    # output is itself recorded (as an expression of those inputs).
    for meta_factory in ("_elementwise_binary_meta_factory", "_elementwise_unary_meta_factory"):
        if hasattr(prims, meta_factory):
            codes |= _codes_of(getattr(prims, meta_factory))
    for meta in ("_convert_element_type_meta", "real_meta", "imag_meta"):
        if hasattr(prims, meta):
            codes |= _codes_of(getattr(prims, meta))
    return codes


class _RecordedValue:
    """Data descriptor replacing the `value` attribute of NumberProxy instances."""

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        if _current() is None:  # not recording: a plain attribute read
            try:
                return obj.__dict__["value"]
            except KeyError:
                raise AttributeError("value") from None
        # The reader: the first caller that is not a pass-through helper.
        frame = sys._getframe(1)
        while frame is not None and frame.f_code in _PASS_THROUGH_CODES:
            frame = frame.f_back
        return _read_value(obj, frame.f_code if frame is not None else None)

    def __set__(self, obj, v):
        obj.__dict__["value"] = v


def _interpreted_value_get(descriptor, obj, objtype=None):
    """`_RecordedValue.__get__` when Thunder's interpreter runs the reading code: the
    reader is the innermost interpreted frame that is not a pass-through helper."""
    if obj is None:
        return descriptor
    # Thunder is imported here, not at module top: the package must import without Thunder.
    from thunder.core.interpreter import get_interpreterruntimectx

    code = None
    for frame in reversed(get_interpreterruntimectx().frame_stack):
        if frame.code not in _PASS_THROUGH_CODES:
            code = frame.code
            break
    return _read_value(obj, code)


def _read_value(obj, reader_code):
    try:
        v = obj.__dict__["value"]
    except KeyError:
        raise AttributeError("value") from None
    rec = _current()
    if rec is not None and v is not None and reader_code not in _BENIGN_CODES:
        rec.guarded(rec.decide, obj, "value", v)
    return v

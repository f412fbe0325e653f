"""Fixed-width float64 vectors for numba kernels (``f64x4``, ``f64x8``).

Numba leaves LLVM's SLP vectorizer off, so four or eight independent scalar accumulators stay
scalar (and spill).  These few intrinsics give the kernels of :mod:`._fused` explicit vector
values instead: an ``f64x4`` / ``f64x8`` is an LLVM ``<4 x double>`` / ``<8 x double>`` held in
one ymm / zmm register (or split into narrower ones on CPUs without AVX2 / AVX-512).

Exactness: ``+`` and ``*`` are plain IEEE ``fadd`` / ``fmul`` without fast-math flags (no
reassociation, no FMA contraction), so every lane is computed exactly as the scalar code
would compute it; :func:`where` only moves values.  A kernel written with these vectors gives
bit-identical results to its scalar version as long as each lane sees the same operations in
the same order.

Loads and stores take a C-contiguous array and a *flat* element index (no bounds check, no
negative-index wraparound: the caller guarantees ``0 <= idx`` and ``idx + width <= arr.size``).

numba's on-disk cache (``cache=True``) keys a kernel on its own source file only: after editing
this module, touch the modules that use it (or clear their ``__pycache__``).
"""

from __future__ import annotations

import operator

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic, models, overload, register_model

__all__ = [
    "f64x4",
    "f64x8",
    "load4",
    "load8",
    "store4",
    "store8",
    "zero4",
    "zero8",
    "lane",
    "concat",
    "where",
    "address",
]

_I32 = ir.IntType(32)


class VecType(types.Type):
    """``width`` float64 lanes in one LLVM vector."""

    def __init__(self, width: int):
        self.width = width
        super().__init__(name=f"f64x{width}")


f64x4 = VecType(4)
f64x8 = VecType(8)


@register_model(VecType)
class _VecModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.DoubleType(), fe_type.width))


def _vec_ptr(context, builder, aty, arr, idx, width):
    ary = context.make_array(aty)(context, builder, arr)
    ptr = builder.gep(ary.data, [idx])
    return builder.bitcast(ptr, ir.VectorType(ir.DoubleType(), width).as_pointer())


def _check_array(arr, idx):
    if not (isinstance(arr, types.Array) and arr.dtype == types.float64 and arr.layout == "C"):
        raise TypingError(f"vector load/store needs a C-contiguous float64 array, got {arr}")
    if not isinstance(idx, types.Integer):
        raise TypingError(f"vector load/store needs an integer flat index, got {idx}")


def _make_load(width):
    vt = VecType(width)

    @intrinsic
    def load(typingctx, arr, idx):
        _check_array(arr, idx)

        def codegen(context, builder, sig, args):
            return builder.load(_vec_ptr(context, builder, sig.args[0], args[0], args[1], width), align=8)

        return vt(arr, idx), codegen

    load.__doc__ = f"``arr.flat[idx : idx + {width}]`` as an f64x{width}."
    return load


def _make_store(width):
    @intrinsic
    def store(typingctx, arr, idx, v):
        _check_array(arr, idx)
        if v != VecType(width):
            raise TypingError(f"store{width} needs an f64x{width}, got {v}")

        def codegen(context, builder, sig, args):
            builder.store(args[2], _vec_ptr(context, builder, sig.args[0], args[0], args[1], width), align=8)
            return context.get_dummy_value()

        return types.none(arr, idx, v), codegen

    store.__doc__ = f"``arr.flat[idx : idx + {width}] = v`` for an f64x{width} ``v``."
    return store


def _make_zero(width):
    vt = VecType(width)

    @intrinsic
    def zero(typingctx):
        def codegen(context, builder, sig, args):
            return ir.Constant(ir.VectorType(ir.DoubleType(), width), [0.0] * width)

        return vt(), codegen

    zero.__doc__ = f"An f64x{width} of +0.0."
    return zero


load4, load8 = _make_load(4), _make_load(8)
store4, store8 = _make_store(4), _make_store(8)
zero4, zero8 = _make_zero(4), _make_zero(8)


@intrinsic
def lane(typingctx, v, k):
    """Lane ``k`` of a vector as a float64."""
    if not isinstance(v, VecType):
        raise TypingError(f"lane() needs a vector, got {v}")

    def codegen(context, builder, sig, args):
        return builder.extract_element(args[0], args[1])

    return types.float64(v, k), codegen


@intrinsic
def concat(typingctx, lo, hi):
    """One vector of twice the width: the lanes of ``lo`` followed by those of ``hi``."""
    if not (isinstance(lo, VecType) and lo == hi):
        raise TypingError(f"concat() needs two vectors of one width, got {lo}, {hi}")
    w = lo.width

    def codegen(context, builder, sig, args):
        return builder.shuffle_vector(args[0], args[1], ir.Constant(ir.VectorType(_I32, 2 * w), list(range(2 * w))))

    return VecType(2 * w)(lo, hi), codegen


@intrinsic
def _splat(typingctx, x, like):
    w = like.width

    def codegen(context, builder, sig, args):
        val = context.cast(builder, args[0], sig.args[0], types.float64)
        v = builder.insert_element(
            ir.Constant(ir.VectorType(ir.DoubleType(), w), ir.Undefined), val, ir.Constant(_I32, 0)
        )
        return builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, w), [0] * w))

    return like(x, like), codegen


@intrinsic
def where(typingctx, cond, a, b):
    """``a`` if ``cond`` else ``b`` (all lanes), without a branch.

    The condition is splatted to a vector mask: LLVM keeps a vector-condition select as a blend
    (AVX-512: a masked add / masked store), where a scalar-condition select next to a load is
    often turned into an unpredictable branch.
    """
    if not (isinstance(a, VecType) and a == b):
        raise TypingError(f"where() needs two vectors of one width, got {a}, {b}")
    w = a.width

    def codegen(context, builder, sig, args):
        c = context.cast(builder, args[0], sig.args[0], types.boolean)
        vc = builder.insert_element(ir.Constant(ir.VectorType(ir.IntType(1), w), ir.Undefined), c, ir.Constant(_I32, 0))
        vc = builder.shuffle_vector(vc, vc, ir.Constant(ir.VectorType(_I32, w), [0] * w))
        return builder.select(vc, args[1], args[2])

    return a(cond, a, b), codegen


@intrinsic
def address(typingctx, arr):
    """The address of ``arr``'s first element (to align work buffers inside a kernel)."""
    if not isinstance(arr, types.Array):
        raise TypingError(f"address() needs an array, got {arr}")

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        return builder.ptrtoint(ary.data, cgutils.intp_t)

    return types.intp(arr), codegen


def _binop(name):
    @intrinsic
    def op(typingctx, a, b):
        def codegen(context, builder, sig, args):
            return getattr(builder, name)(args[0], args[1])

        return a(a, b), codegen

    return op


_vadd, _vmul = _binop("fadd"), _binop("fmul")


@overload(operator.add)
@overload(operator.iadd)
def _ov_add(a, b):
    if isinstance(a, VecType) and a == b:
        return lambda a, b: _vadd(a, b)


@overload(operator.mul)
@overload(operator.imul)
def _ov_mul(a, b):
    if isinstance(a, VecType) and a == b:
        return lambda a, b: _vmul(a, b)
    if isinstance(a, VecType) and isinstance(b, types.Float):
        return lambda a, b: _vmul(a, _splat(b, a))  # v * x: the float x broadcast to every lane

"""Autograd of the two products. With out = A(v) B and s = SDDMM_A(X, Y) (s_j = X[r_j] . Y[c_j]):
    d out / d B = A^T grad,          d out / d v_j = grad[r_j] . B[c_j]  (an SDDMM on A's pattern),
    d s / d X   = A(grad_s) Y,       d s / d Y     = A(grad_s)^T X.
Each is one of the kernels again, so a training step runs only rsh products."""
import torch
from torch.autograd.function import once_differentiable


def _check_operand(values, dense, name):
    if dense.dim() != 2:
        raise ValueError(f"rsh: {name} must be rank 2, got shape {tuple(dense.shape)}")
    if dense.dtype != values.dtype:
        raise TypeError(f"rsh: {name} is {dense.dtype} but A's values are {values.dtype}")
    if dense.device != values.device:
        raise ValueError(f"rsh: {name} is on {dense.device} but A's values are on {values.device}")


def multiply(pattern, values, dense):
    """A(values) @ dense, forward only."""
    return pattern.kernel(dense.device, dense.dtype).mm(values, dense)


def multiply_transposed(pattern, values, dense):
    """A(values)^T @ dense, through the transposed pattern."""
    pattern_t, _ = pattern.transposed()
    return multiply(pattern_t, pattern.transposed_values(values), dense)


class SpMM(torch.autograd.Function):
    @staticmethod
    def forward(ctx, values, B, pattern):
        _check_operand(values, B, "B")
        if B.shape[0] != pattern.num_cols:
            raise ValueError(f"rsh: A is {pattern.num_rows} x {pattern.num_cols} but B has {B.shape[0]} rows")
        ctx.pattern = pattern
        ctx.save_for_backward(values, B)
        return multiply(pattern, values, B.detach())  # values as given: the kernel knows them again (Loaded)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        values, B = ctx.saved_tensors
        grad_values = grad_B = None
        if ctx.needs_input_grad[0]:
            grad_values = ctx.pattern.kernel(B.device, B.dtype).sddmm(grad, B)
        if ctx.needs_input_grad[1]:
            grad_B = multiply_transposed(ctx.pattern, values, grad)
        return grad_values, grad_B, None


class SDDMM(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, Y, pattern):
        if X.dim() != 2 or Y.dim() != 2 or X.shape[1] != Y.shape[1]:
            raise ValueError(f"rsh: sddmm takes X (rows x k) and Y (cols x k), got {tuple(X.shape)} and "
                             f"{tuple(Y.shape)}")
        _check_operand(X, Y, "Y")
        if X.shape[0] != pattern.num_rows or Y.shape[0] != pattern.num_cols:
            raise ValueError(f"rsh: A is {pattern.num_rows} x {pattern.num_cols} but X has {X.shape[0]} rows "
                             f"and Y {Y.shape[0]}")
        ctx.pattern = pattern
        ctx.save_for_backward(X, Y)
        return pattern.kernel(X.device, X.dtype).sddmm(X.detach(), Y.detach())

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        X, Y = ctx.saved_tensors
        grad = grad.contiguous()
        grad_X = multiply(ctx.pattern, grad, Y) if ctx.needs_input_grad[0] else None
        grad_Y = multiply_transposed(ctx.pattern, grad, X) if ctx.needs_input_grad[1] else None
        return grad_X, grad_Y, None

"""The compiled matrices behind a pattern, one per (device, dtype): values in, products out, as tensors."""
import torch

from .. import _rsh

_CUDA_CLASSES = {torch.float32: "CudaMatrixFloat", torch.float16: "CudaMatrixHalf",
                 torch.bfloat16: "CudaMatrixBFloat16"}
_HOST_CLASSES = {torch.float32: "HostMatrixFloat", torch.float64: "HostMatrixDouble"}


def _dense_out(rows, cols, like):
    """An output of rows x cols in `like`'s storage order (column-major stays column-major)."""
    if like.dim() == 2 and like.shape[0] > 1 and like.stride(0) == 1:
        return torch.empty((cols, rows), dtype=like.dtype, device=like.device).t()
    return torch.empty((rows, cols), dtype=like.dtype, device=like.device)


def _operand(t):
    """`t` as the kernels take it: unit stride along one dimension (else a row-major copy)."""
    if t.dim() == 2 and (t.stride(1) == 1 or t.stride(0) == 1):
        return t
    return t.contiguous()


class Loaded:
    """Remembers which values (and which version of them) something was made from, to skip repeating the work
    (uploads, gathers) while they are unchanged. Values count as unchanged when they are the same elements of
    the same memory at the same version, so an alias such as `values.detach()` is the values already loaded.
    Holding (an alias of) the last tensor keeps its memory from being reused by another tensor, and aliases share
    its version counter, so an in-place change is seen. Values that require grad are loaded every time: they are
    trained, and tools such as gradcheck change them through `.data`, which no version counter sees."""

    def __init__(self):
        self.tensor, self.key = None, None

    @staticmethod
    def _key(values):
        return (values.data_ptr(), tuple(values.shape), values.stride(), values.dtype, values.device,
                values._version)

    def holds(self, values):
        return not values.requires_grad and self.tensor is not None and self._key(values) == self.key

    def hold(self, values):
        self.tensor, self.key = values.detach(), self._key(values)  # detached: no autograd graph is kept alive


class CudaKernel:
    """rsh._rsh.CudaMatrix{Float,Half,BFloat16} on one device: A's values live in the plan as value slots."""

    def __init__(self, pattern, device, dtype):
        if dtype not in _CUDA_CLASSES:
            raise TypeError(f"rsh: {dtype} on CUDA is not supported (float32, float16 and bfloat16 are)")
        if not _rsh.has_cuda:
            raise RuntimeError("rsh: this build has no CUDA backend")
        self.device = device
        with torch.cuda.device(device):
            cls = getattr(_rsh, _CUDA_CLASSES[dtype])
            self.matrix = cls(pattern.num_cols, pattern.row_map, pattern.entries, pattern.options, self._stream())
            self.slot_of_entry = torch.from_numpy(self.matrix.slot_of_entry()).to(device)
        self.dtype = dtype
        self.loaded = Loaded()

    def _stream(self):
        return torch.cuda.current_stream(self.device).cuda_stream

    def load(self, values):
        if self.loaded.holds(values):
            return
        slots = torch.zeros(self.matrix.num_slots, dtype=self.dtype, device=self.device)
        slots.index_add_(0, self.slot_of_entry, values.detach().to(self.dtype))  # duplicated positions share a slot
        self.matrix.set_slots(slots, self._stream())
        self.loaded.hold(values)

    def mm(self, values, B):
        self.load(values)
        B = _operand(B)
        out = _dense_out(self.matrix.num_rows, B.shape[1], B)
        self.matrix.spmm(1.0, B, 0.0, out, self._stream())
        return out

    def sddmm(self, X, Y):
        slots = torch.empty(self.matrix.num_slots, dtype=torch.float32, device=self.device)
        self.matrix.sddmm(X.contiguous(), Y.contiguous(), slots, self._stream())
        return slots[self.slot_of_entry].to(X.dtype)

    def describe(self):
        return self.matrix.describe()


class HostKernel:
    """rsh._rsh.HostMatrix{Float,Double}: the portable Kokkos kernels on host tensors."""

    def __init__(self, pattern, dtype):
        if dtype not in _HOST_CLASSES:
            raise TypeError(f"rsh: {dtype} on the CPU is not supported (float32 and float64 are)")
        cls = getattr(_rsh, _HOST_CLASSES[dtype])
        self.matrix = cls(pattern.num_cols, pattern.row_map, pattern.entries, pattern.options)
        self.dtype = dtype
        self.loaded = Loaded()

    def load(self, values):
        if self.loaded.holds(values):
            return
        self.matrix.set_values(values.detach().to(self.dtype).contiguous())
        self.loaded.hold(values)

    def mm(self, values, B):
        self.load(values)
        B = B if B.is_contiguous() or B.t().is_contiguous() else B.contiguous()
        out = _dense_out(self.matrix.num_rows, B.shape[1], B)
        self.matrix.spmm("N", 1.0, B, 0.0, out)
        return out

    def sddmm(self, X, Y):
        out = torch.empty(self.matrix.nnz, dtype=X.dtype)
        self.matrix.sddmm(1.0, X.contiguous(), Y.contiguous(), 0.0, out)
        return out

    def describe(self):
        return self.matrix.describe()

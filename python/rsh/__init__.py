"""rsh: sparse x dense multiply (SpMM) and SDDMM on RS-Tile (Tensor-Core tiles plus a CUDA-core residual).

``rsh.torch`` is the PyTorch front end (``SparseMatrix``, autograd, ``GCNConv``). The compiled module
``rsh._rsh`` holds the kernels: ``CudaMatrixFloat`` / ``CudaMatrixHalf`` take DLPack arrays in device memory
(PyTorch, CuPy, JAX) and a CUDA stream; ``HostMatrixFloat`` / ``HostMatrixDouble`` run the portable Kokkos
kernels on host arrays.
"""
from . import _rsh
from ._rsh import Options

#: True when the extension was built with the CUDA backend.
has_cuda = bool(_rsh.has_cuda)


def cuda_device_available():
    """True when the CUDA backend is built and a CUDA device is usable."""
    return has_cuda and _rsh.cuda_device_available()


def make_options(**kwargs):
    """An ``Options`` with the named fields set (partition, reorder, allow_tf32, deterministic, ...)."""
    options = Options()
    for name, value in kwargs.items():
        if not hasattr(options, name):
            raise TypeError(f"rsh: unknown option {name!r}")
        setattr(options, name, value)
    return options


__all__ = ["Options", "has_cuda", "cuda_device_available", "make_options"]

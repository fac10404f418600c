"""A CSR pattern shared by matrices that differ only in their values (A, its gradient values, attention)."""
import numpy as np
import torch

from .. import make_options
from ._kernels import CudaKernel, HostKernel, Loaded


class Pattern:
    """Row offsets and column indices on the host (what the inspector reads), the compiled matrices built
    from them per (device, dtype), and the transposed pattern with the permutation that carries values
    from A's CSR order to A^T's."""

    def __init__(self, row_map, entries, shape, options):
        self.row_map = np.ascontiguousarray(row_map, dtype=np.int64)
        self.entries = np.ascontiguousarray(entries, dtype=np.int32)
        self.num_rows, self.num_cols = int(shape[0]), int(shape[1])
        if self.row_map.shape != (self.num_rows + 1,):
            raise ValueError(f"rsh: row offsets need {self.num_rows + 1} entries, got {self.row_map.shape[0]}")
        if self.num_rows > 0 and self.row_map[-1] != self.entries.shape[0]:
            raise ValueError(f"rsh: row offsets end at {self.row_map[-1]} but {self.entries.shape[0]} "
                             "column indices were given")
        if self.entries.size and (self.entries.min() < 0 or self.entries.max() >= self.num_cols):
            raise ValueError(f"rsh: a column index lies outside [0, {self.num_cols})")
        if np.any(np.diff(self.row_map) < 0) or self.row_map[0] != 0:
            raise ValueError("rsh: row offsets must start at 0 and never decrease")
        self.options = options if options is not None else make_options()
        self._kernels = {}
        self._transposed = None
        self._device_arrays = {}
        self._last_transposed, self._transposed_values = Loaded(), None

    @property
    def nnz(self):
        return int(self.entries.shape[0])

    def kernel(self, device, dtype):
        key = (device, dtype)
        if key not in self._kernels:
            self._kernels[key] = (CudaKernel(self, device, dtype) if device.type == "cuda"
                                  else HostKernel(self, dtype))
        return self._kernels[key]

    def transposed(self):
        """(pattern of A^T, perm): A^T's values in its CSR order are A's values[perm]."""
        if self._transposed is None:
            rows = np.repeat(np.arange(self.num_rows, dtype=np.int64), np.diff(self.row_map))
            perm = np.lexsort((rows, self.entries))  # by column, then row: A^T's CSR order
            counts = np.bincount(self.entries, minlength=self.num_cols)
            row_map_t = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
            pattern_t = Pattern(row_map_t, rows[perm].astype(np.int32), (self.num_cols, self.num_rows), self.options)
            self._transposed = (pattern_t, perm)
        return self._transposed

    def transpose_perm(self, device):
        """The permutation of transposed() as an index tensor on `device`."""
        return self._on(device, "perm", lambda: torch.from_numpy(self.transposed()[1]))

    def transposed_values(self, values):
        """values (A's CSR order) in A^T's CSR order: one gather, reused while `values` is unchanged (the
        backward pass of every product with A needs it)."""
        if not self._last_transposed.holds(values):
            self._transposed_values = values[self.transpose_perm(values.device)]
            self._last_transposed.hold(values)
        return self._transposed_values

    def row_of_entry(self, device):
        """The row of each stored position, on `device` (for per-row reductions such as softmax)."""
        return self._on(device, "rows", lambda: torch.repeat_interleave(
            torch.arange(self.num_rows), torch.from_numpy(np.diff(self.row_map))))

    def _on(self, device, name, make):
        key = (device, name)
        if key not in self._device_arrays:
            self._device_arrays[key] = make().to(device)
        return self._device_arrays[key]

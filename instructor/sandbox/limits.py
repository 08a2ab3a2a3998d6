"""What one sandboxed submission may use."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox (one submission).

    Every limit holds for the whole sandbox, not for one process, except
    ``cpu_seconds`` and ``file_mb`` (kernel rlimits, per process). Memory,
    processes and CPU share are cgroups; ``tmp_mb`` and ``disk_mb`` are the
    sizes of the two file systems it can write (RAM-backed, so they count
    towards its memory too). Output bytes have three budgets: text, figures
    (any ``image/*``), and the values checks send (a display output whose
    only MIME type is :data:`course.channel.MIME`).

    One value travels whole from ``course grade`` to every reader: the
    sandbox (``SandboxedExecute.limits``, then the executor's job) and the
    grader's own output cap (``CapOutputBytes.limits``); never rebuilt field
    by field, where a field left out would quietly fall back to its default.
    """

    cell_timeout: float = 30.0  # seconds a cell may run before it is interrupted
    notebook_budget: float = 180.0  # seconds for the whole notebook, kernel start included
    memory_mb: int = 2048  # RAM of every process together (memory cgroup)
    processes: int = 64  # processes and threads together (pids cgroup)
    cpu_seconds: int = 600  # CPU time per process (RLIMIT_CPU)
    file_mb: int = 64  # largest file a process may write (RLIMIT_FSIZE)
    tmp_mb: int = 256  # size of the sandbox's /tmp
    disk_mb: int = 512  # size of everything else it may write: work folder, home, result (a tmpfs)
    cpus: float = 0.0  # a cap on CPU time per wall-clock second (cpu cgroup); 0: no cap, an equal share
    #                    with every other sandbox when they compete (each has a cpu cgroup of its own)
    cell_output_bytes: int = 64_000  # text outputs kept per cell, the rest cut
    notebook_output_bytes: int = 1_000_000  # text outputs kept per notebook
    verdict_chars: int = 2_000  # kept of an error or stderr past the caps (never cut: it fails the cell)
    cell_image_bytes: int = 1_000_000  # figures kept per cell (a budget of their own: one attention
    notebook_image_bytes: int = 4_000_000  # figure would use up a cell's text budget)
    cell_values_bytes: int = 4_000_000  # bytes of the values each check sends (a budget per check: what
    notebook_values_bytes: int = 32_000_000  # it computed, for the grader) and of all, per notebook
    required: bool = True  # refuse to run where no memory and process limit can be set (`--no-limits`: False)

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def wall_clock(self) -> float:
        """When the grader kills the sandbox from outside, whatever happens inside."""
        return self.notebook_budget + 30.0

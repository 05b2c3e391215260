"""kitgrader: the grader of the GPU Sorting Lab Kit (the command is grading/grade).

One job per module:
    discover   what the kit offers: its labs, their prebuilt parts, a submission's files
    rubric     a lab's rubric (grading/rubric/NN-name.json) or the default one
    build      compiling a student's file and linking it into the lab's executor
    run        running a process under limits; running one test through the result channel
    includes   where a student file's headers may come from (a text scan, nvcc's dependencies)
    allowlist  what a lab's object may import (the base list and a rubric's additions)
    forbidden  what a lab's object file may not use or define (found with nm)
    sandbox    the sandbox that compiling and running student code happens in (bubblewrap)
    speed      timing a lab's sort against the reference solution's
    cpu        the CPU time a student's process may use (the sort must run on the GPU)
    evidence   points need evidence that the GPU did a TODO's work (judged tests, timed run)
    sanitize   compute-sanitizer memcheck and racecheck, and reading their reports
    gpu        is a GPU here, is it free, which ones
    emulated   no GPU: a lab's [emulate] tests on the CPU emulation, in the sandbox (no points)
    results    what grading finds, and the scores that follow from it
    labstate   what grading knows of a lab before anyone is graded, and between its stages
    grader     grading one submission, lab by lab: the stages below, in order
    stage_build   its build stage: the student file taken, compiled, checked, linked
    stage_tests   its test stage: every test in one pool (or, without a GPU, emulated)
    stage_timed   its timed stage: speed and CPU time with the GPU alone, the sanitizers
    report     the terminal table, results.json (Gradescope), the CSV gradebook
    classroom  grading a folder of submissions, several at once on several GPUs
    sharing    several submissions on one GPU: turns, timing alone, a memory budget per slot
    slurm      grading a class through Slurm: one job array, K submissions per task

Only the Python 3 standard library is used (3.9 or newer).
"""

# The kit's exit codes (common/exit_codes.h), as the grader uses them.
EXIT_OK = 0  # graded; in single mode: every point
EXIT_WRONG = 1  # graded; some points lost
EXIT_USAGE = 2  # bad command line, bad rubric, or the kit not built
EXIT_NO_GPU = 3  # no usable GPU (no driver, no device, or the GPU is busy)


class GraderError(Exception):
    """The grader cannot do its job; nothing is the student's fault. Ends with exit_code."""

    def __init__(self, message, exit_code=EXIT_USAGE):
        super().__init__(message)
        self.exit_code = exit_code


class NoGpu(GraderError):
    """No usable GPU, before or during grading: exit code 3."""

    def __init__(self, message):
        super().__init__(message, EXIT_NO_GPU)


class Interrupted(GraderError):
    """Ctrl-C or SIGTERM: every test process was killed."""

    def __init__(self, message="interrupted"):
        super().__init__(message, 130)

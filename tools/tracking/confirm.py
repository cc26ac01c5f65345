"""Confirming an environment cause: the keys that differ across a change point, each switched
alone where a process can switch it (levers), the moved rows timed with the key as it was
before against as it was after (tracking.measure's A/B of one build under two environments),
and a verdict per lever: reproduces the move (moved), does not (same), undecided. Keys that no
process can switch (the driver, the GPU, the CPU, the compiler) are said to be unconfirmable,
with why. Standard library only.

Levers (each switches its keys and nothing else a run records, but what follows from them):
  library   blas_library / blas_variant / blas_version / blas_vendor (and blas_config,
            lapack_version, blas_threads that follow): the folder of that side's library first
            on LD_LIBRARY_PATH (the file's own folder where it exists here, else
            <libdir>/<variant>, Debian's alternatives' folders such as
            /usr/lib/x86_64-linux-gnu/openblas-serial/);
  coretype  blas_core (and blas_config, which names the core): OPENBLAS_CORETYPE;
  threads   blas_threads: OPENBLAS_NUM_THREADS and the other vendors' variables;
  variables thread_env: the variables that differ, set or unset (those of the levers above
            left to them);
  cores     cores_available: taskset -c 0-(k-1), where this machine has k cores;
  gpu       gpu_name: CUDA_VISIBLE_DEVICES, where this machine has both GPUs.
"""
import os
import shutil
import subprocess
import sysconfig
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from tracking.measure import Side

LIBRARY_KEYS = ("blas_library", "blas_variant", "blas_config", "blas_version", "blas_vendor", "lapack_version",
                "lapack_library")
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
UNCONFIRMABLE = {
    "cuda_driver_version": "the driver is the kernel module's: no process can switch it",
    "cuda_runtime_version": "linked at build time: rebuild against that CUDA, then bisect or compare the builds",
    "cusolver_version": "linked at build time: rebuild against that CUDA, then compare the builds",
    "gpu_name": "that GPU is not in this machine",
    "gpu_sm_clock_khz": "the GPU's clocks are set for the whole device (nvidia-smi -lgc, as root), not by a process",
    "cpu_model": "the CPU is the machine's",
    "cpu_governor": "the governor is set for the whole machine (as root), not by a process",
    "compiler": "needs a rebuild with that compiler",
    "solve_bench_build_type": "needs a rebuild",
    "library_build_type": "needs a rebuild",
    "solve_bench_version": "code, not environment: tools/track bisect",
}


@dataclass
class Lever:
    name: str
    keys: Dict[str, list]            # the differing keys it switches: {key: [before, after]}
    before: dict = field(default_factory=dict)   # Side settings: {"env": {...}, "prefix": [...]}
    after: dict = field(default_factory=dict)

    def how(self) -> str:
        def text(s):
            by_value = {}
            for name, value in sorted(s.get("env", {}).items()):
                by_value.setdefault(value, []).append(name)
            words = ["unset " + ",".join(names) if value is None else "%s=%s" % (",".join(names), value)
                     for value, names in by_value.items()]
            return " ".join(words + s.get("prefix", [])) or "as this process is"
        return "%s -> %s" % (text(self.before), text(self.after))

    def sides(self, binary: str):
        return (Side("before: " + self.how(), binary, dict(self.before.get("env", {})), list(self.before.get("prefix", []))),
                Side("after: " + self.how(), binary, dict(self.after.get("env", {})), list(self.after.get("prefix", []))))


def library_dir(path: Optional[str], variant: Optional[str], libdirs: List[str]) -> Optional[str]:
    """The folder to put first for a side's library: its own where the file is here, else the
    folder named after its variant in one of the system's library folders."""
    path = (path or "").split(" (")[0]  # " (linked statically)"
    if path and os.path.isfile(path) and os.path.realpath(path) == path:
        return os.path.dirname(path)  # a file named as the run found it, links resolved
    for libdir in libdirs:
        if variant and os.path.isdir(os.path.join(libdir, variant)):
            return os.path.join(libdir, variant)
    return os.path.dirname(os.path.realpath(path)) if path and os.path.isfile(path) else None


def system_libdirs() -> List[str]:
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    return [d for d in ("/usr/lib/" + multiarch if multiarch else "", "/usr/lib64", "/usr/lib") if d]


def parse_thread_env(text: Optional[str]) -> Dict[str, str]:
    """solve_bench's thread_env ("NAME=value;NAME=value") as a dict."""
    out = {}
    for item in (text or "").split(";"):
        if "=" in item:
            name, value = item.split("=", 1)
            out[name] = value
    return out


def gpu_indices() -> Dict[str, List[str]]:
    """{GPU name: [index, ...]} of this machine (nvidia-smi), {} without one."""
    if not shutil.which("nvidia-smi"):
        return {}
    p = subprocess.run(["nvidia-smi", "--query-gpu=index,name", "--format=csv,noheader"], capture_output=True, text=True)
    out = {}
    for line in p.stdout.splitlines() if p.returncode == 0 else ():
        index, _, name = line.partition(",")
        out.setdefault(name.strip(), []).append(index.strip())
    return out


def levers(environment: Dict[str, list], libdirs: Optional[List[str]] = None, cores: Optional[int] = None,
           gpus: Optional[Dict[str, List[str]]] = None):
    """([Lever], {key: why unconfirmable}) for the keys that differ, {key: [before, after]}."""
    libdirs = system_libdirs() if libdirs is None else libdirs
    cores = (os.cpu_count() or 1) if cores is None else cores
    found, unconfirmable = [], {}
    env = environment

    library = {k: env[k] for k in LIBRARY_KEYS if k in env}
    if not set(library) & {"blas_library", "blas_variant", "blas_version", "blas_vendor"}:
        library = {}  # blas_config alone: it names the core, which the coretype lever switches
    if library:
        dirs = [library_dir(side(env, "blas_library", i), side(env, "blas_variant", i), libdirs) for i in (0, 1)]
        if all(dirs) and dirs[0] != dirs[1]:
            if "blas_threads" in env and "blas_variant" in env:
                library["blas_threads"] = env["blas_threads"]  # a serial build's one thread follows from it
            found.append(Lever("library", library, {"env": {"LD_LIBRARY_PATH": dirs[0]}},
                               {"env": {"LD_LIBRARY_PATH": dirs[1]}}))
        else:
            missing = [side(env, "blas_library", i) or side(env, "blas_variant", i) for i in (0, 1) if not dirs[i]]
            why = ("the library of that side is not on this machine (%s)" % ", ".join(map(str, missing)) if missing
                   else "both sides' libraries are the same file here")
            unconfirmable.update({k: why for k in library})
    covered = set()
    if "blas_core" in env and all(env["blas_core"]):
        keys = {k: env[k] for k in ("blas_core", "blas_config") if k in env and k not in library}
        found.append(Lever("coretype", keys,
                           {"env": {"OPENBLAS_CORETYPE": env["blas_core"][0]}},
                           {"env": {"OPENBLAS_CORETYPE": env["blas_core"][1]}}))
        covered.add("OPENBLAS_CORETYPE")
    elif "blas_core" in env:
        unconfirmable["blas_core"] = "one side names no core"
    if "blas_threads" in env:
        counts = env["blas_threads"]
        if all(str(c).isdigit() and int(c) > 0 for c in counts):
            found.append(Lever("threads", {"blas_threads": counts},
                               {"env": {v: str(counts[0]) for v in THREAD_VARIABLES}},
                               {"env": {v: str(counts[1]) for v in THREAD_VARIABLES}}))
            covered.update(THREAD_VARIABLES)
        else:
            unconfirmable["blas_threads"] = "one side's count is unknown (%s)" % counts
    if "thread_env" in env:
        a, b = (parse_thread_env(v) for v in env["thread_env"])
        differ = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
        names = [n for n in differ if n not in covered]
        if names:
            found.append(Lever("variables", {"thread_env": env["thread_env"]},
                               {"env": {n: a.get(n) for n in names}}, {"env": {n: b.get(n) for n in names}}))
        elif differ:  # its variables are those another lever sets (OPENBLAS_CORETYPE, the thread counts)
            next(lv for lv in found if set(differ) & set(lv.after.get("env", {}))).keys["thread_env"] = env["thread_env"]
    if "cores_available" in env:
        counts = env["cores_available"]
        if all(str(c).isdigit() and 0 < int(c) <= cores for c in counts):
            found.append(Lever("cores", {"cores_available": counts},
                               {"prefix": ["taskset", "-c", "0-%d" % (int(counts[0]) - 1)]},
                               {"prefix": ["taskset", "-c", "0-%d" % (int(counts[1]) - 1)]}))
        else:
            needed = max((int(c) for c in counts if str(c).isdigit()), default=None)
            unconfirmable["cores_available"] = ("this machine has %d cores, fewer than %d" % (cores, needed) if needed
                                                else "one side's count is unknown (%s)" % counts)
    if "gpu_name" in env:
        gpus = gpu_indices() if gpus is None else gpus
        if all(name in gpus for name in env["gpu_name"]):
            found.append(Lever("gpu", {"gpu_name": env["gpu_name"]},
                               {"env": {"CUDA_VISIBLE_DEVICES": gpus[env["gpu_name"][0]][0]}},
                               {"env": {"CUDA_VISIBLE_DEVICES": gpus[env["gpu_name"][1]][0]}}))
        else:
            unconfirmable["gpu_name"] = UNCONFIRMABLE["gpu_name"]
    switched = {k for lever in found for k in lever.keys}
    for key in env:
        if key not in switched and key not in unconfirmable:
            unconfirmable[key] = UNCONFIRMABLE.get(key, "no process can switch it that tools/track knows")
    return found, unconfirmable


def side(env: Dict[str, list], key: str, i: int):
    return env[key][i] if key in env else None


# Keys that only restate another (the config names the core and the threading; thread_env the
# variables the levers set): left out of a short account when another key is there.
RESTATING = ("blas_config", "thread_env", "blas_library")


def keys_text(keys: Dict[str, list], short: bool = False) -> str:
    def value(v):
        return '""' if v in ("", None) else str(v)
    if short and set(keys) - set(RESTATING):
        keys = {k: v for k, v in keys.items() if k not in RESTATING}
    return ", ".join("%s %s -> %s" % (k, value(v[0]), value(v[1])) for k, v in sorted(keys.items()))

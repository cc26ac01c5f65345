"""What a tool needs from its interpreter, said before it is missed (standard library only)."""
import importlib.util
import os
import subprocess
import sys
from typing import List


def modules(tool: str, names: List[str]) -> None:
    """Exit 2 with what to do when this interpreter lacks one of the modules (a pyenv or venv
    python3 first on PATH often does): which interpreter has them, and the Debian package."""
    missing = [m for m in names if importlib.util.find_spec(m) is None]
    if not missing:
        return
    packages = " ".join("python3-" + m for m in missing)
    others = []
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.realpath(candidate) == os.path.realpath(sys.executable) or not os.access(candidate, os.X_OK):
            continue
        probe = subprocess.run([candidate, "-c", "import " + ", ".join(names)], capture_output=True)
        if probe.returncode == 0:
            others.append(candidate)
    hint = ("; %s has them: %s %s" % (others[0], others[0], " ".join([sys.argv[0]] + sys.argv[1:]))
            if others else "")
    sys.stderr.write("%s: needs %s, which %s lacks%s; or install them (Debian/Ubuntu: apt install %s)\n" % (
        tool, ", ".join(missing), sys.executable, hint, packages))
    sys.exit(2)

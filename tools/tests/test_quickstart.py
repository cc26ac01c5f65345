#!/usr/bin/env python3
"""tools/quickstart: --help prints its usage and exits 0; a mode it does not know exits 2 with the
usage; and its install step runs apt-get as root directly, through sudo as a user who has it,
and stops with a message naming sudo as a user who has not (the README's quick start, in a
container as root and on a workstation as a user). The install is watched on a PATH of stand-ins:
every program of /usr/bin but cmake (so cmake is missing), id answering the uid the case wants,
and apt-get and sudo that write down how they were called."""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

QUICKSTART = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "quickstart")
MODES = ("bench", "report", "test", "mpi", "install")


def script(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class Help(unittest.TestCase):
    def test_help_prints_the_usage_and_exits_0(self):
        for flag in ("--help", "-h"):
            p = subprocess.run([QUICKSTART, flag], capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(p.stdout.startswith("usage: tools/quickstart MODE"), p.stdout)
            for mode in MODES:
                self.assertIn("\n  %s " % mode, p.stdout)
            self.assertIn("sudo", p.stdout)
            self.assertNotIn("# ", p.stdout)  # the comment's markers are gone
            self.assertEqual(p.stderr, "")

    def test_an_unknown_mode_exits_2_with_the_usage(self):
        for args in ([], ["benchmark"], ["--frobnicate"]):
            p = subprocess.run([QUICKSTART] + args, capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, args)
            self.assertTrue(p.stderr.startswith("usage: tools/quickstart MODE"), p.stderr)
            self.assertEqual(p.stdout, "")


class Install(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sb-quickstart-")
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        self.log = os.path.join(self.dir, "calls")
        for name in os.listdir("/usr/bin"):
            if name not in ("cmake", "id", "sudo", "apt-get"):
                os.symlink(os.path.join("/usr/bin", name), os.path.join(self.bin, name))
        script(os.path.join(self.bin, "id"), 'echo "$FAKE_UID"')
        script(os.path.join(self.bin, "apt-get"), 'echo "apt-get $* (uid $FAKE_UID)" >> "%s"' % self.log)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def install(self, uid, sudo):
        if sudo:  # a user's sudo: the command runs as root
            script(os.path.join(self.bin, "sudo"), 'echo "sudo $*" >> "%s"; FAKE_UID=0 exec "$@"' % self.log)
        env = {"PATH": self.bin, "FAKE_UID": str(uid), "HOME": self.dir}
        p = subprocess.run([QUICKSTART, "install"], capture_output=True, text=True, env=env, timeout=120)
        calls = []
        if os.path.exists(self.log):
            with open(self.log) as f:
                calls = f.read().splitlines()
        return p, calls

    def test_as_root_apt_get_runs_directly(self):
        p, calls = self.install(0, sudo=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("installing", p.stdout)
        self.assertEqual(len(calls), 2, calls)
        self.assertTrue(calls[0].startswith("apt-get update") and calls[0].endswith("(uid 0)"), calls)
        self.assertTrue(calls[1].startswith("apt-get install") and " cmake " in calls[1] + " ", calls)

    def test_as_a_user_with_sudo_only_apt_get_runs_through_it(self):
        p, calls = self.install(1000, sudo=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([c.split()[0] for c in calls], ["sudo", "apt-get", "sudo", "apt-get"], calls)
        self.assertIn("apt-get update", calls[0])
        self.assertTrue(calls[1].endswith("(uid 0)"), calls)  # as root, through sudo
        self.assertTrue(calls[3].startswith("apt-get install") and calls[3].endswith("(uid 0)"), calls)
        self.assertIn(" cmake", calls[3])

    def test_as_a_user_without_sudo_it_says_what_it_needs(self):
        p, calls = self.install(1000, sudo=False)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(calls, [])
        self.assertIn("run this as root, or as a user with sudo", p.stderr)
        self.assertIn("cmake", p.stderr)


if __name__ == "__main__":
    unittest.main()

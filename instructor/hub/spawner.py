"""CourseSpawner: each user's server as their own Unix user, inside their cgroup budget.

Students get JupyterLab with the student settings folder first on
``JUPYTER_CONFIG_PATH`` (nbgrader's course id and exchange; the formgrader,
course list and create-assignment tools switched off); staff get JupyterLab in
the course directory, where nbgrader's formgrader reads its
``nbgrader_config.py``. What a student may read is still decided by Unix
permissions (:mod:`instructor.hub.accounts`); switching the tools off only
keeps the interface honest.
"""

from __future__ import annotations

import os
import sys

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Bool, Float, Integer, Set, Unicode

from instructor.hub import cgroups

#: what a staff member's server, and every kernel and terminal it starts, runs with besides the hub's variables.
#: PYTHONSAFEPATH (Python 3.11's -P): ``python -m`` leaves the working folder off ``sys.path``, and IPython 9.7+
#: then adds no '' either. The server runs in the course directory, a kernel in the folder of the notebook it
#: opens: a student's file beside her notebook in submitted/ or autograded/ named as a module the kernel imports
#: at start (``ipykernel_launcher.py``, ``zmq.py``), or a file of the course directory named as one the server
#: imports, would otherwise run as the staff member who opens it (issue 58). Students keep the default: their
#: own modules beside their own notebooks import in their own kernels, and the grading sandbox puts the
#: notebook's folder on the path itself (instructor/sandbox/executor.py), for the student's code only.
STAFF_ENV = {"PYTHONSAFEPATH": "1"}


class CourseSpawner(LocalProcessSpawner):
    staff = Set(help="instructors and graders: they start in the course directory").tag(config=True)
    course_dir = Unicode(help="the course directory (staff only)").tag(config=True)
    student_config = Unicode(help="Jupyter settings folder for students").tag(config=True)
    staff_config = Unicode(help="Jupyter settings folder for staff").tag(config=True)
    privileged = Unicode(help="the staff's privileged path (instructor.hub.privileged): its script").tag(config=True)
    memory_mb = Integer(2048, help="memory of a user's server, kernels included (MB)").tag(config=True)
    cpus = Float(1.0, help="CPUs' time a user's server may use").tag(config=True)
    processes = Integer(256, help="processes a user's server may run").tag(config=True)
    cgroup_parent = Unicode(help="this hub's cgroups: course-hub/<cgroup_parent>/<user>").tag(config=True)
    no_limits = Bool(False, help="start servers where no memory and process limit can be set").tag(config=True)

    @property
    def is_staff(self) -> bool:
        return self.user.name in self.staff

    def get_env(self):
        env = super().get_env()
        env["JUPYTER_CONFIG_PATH"] = self.staff_config if self.is_staff else self.student_config
        if self.is_staff:  # every `course` command in their terminal finds the course, and root's steps
            env.update(STAFF_ENV)
            env["COURSE_DIR"] = self.course_dir
            if self.privileged:
                env["COURSE_PRIVILEGED"] = self.privileged
            # the course's Python (`course`, `nbgrader`) first, and the folder of the privileged script
            folders = [os.path.dirname(self.privileged)] if self.privileged else []
            env["PATH"] = os.pathsep.join([*folders, os.path.dirname(sys.executable), env.get("PATH", os.defpath)])
        return env

    def get_args(self):
        args = super().get_args()
        if self.is_staff:
            args.append(f"--ServerApp.root_dir={self.course_dir}")
        return args

    def make_preexec_fn(self, name):
        become_user = super().make_preexec_fn(name)
        joins = [str(f) for f in self._cgroup.procs_files] if self._cgroup else []
        course_path = self.course_dir if self.is_staff else None
        # staff share the course directory through its group: what they make there is the group's to change
        umask = 0o002 if self.is_staff else None

        def preexec():
            pid = str(os.getpid())
            for procs in joins:  # before dropping root: only root may move a process between cgroups
                with open(procs, "w") as f:
                    f.write(pid)
            become_user()
            if umask is not None:
                os.umask(umask)
            if course_path:  # nbgrader reads nbgrader_config.py from the working folder
                os.chdir(course_path)

        return preexec

    async def start(self):
        if cgroups.available():
            group = cgroups.UserCgroup(self.cgroup_parent, self.user.name)
            self._cgroup = group.start(self.memory_mb, self.cpus, self.processes)
            self.log.info("%s's server: %s limits held", self.user.name, ", ".join(self._cgroup.held))
        elif self.no_limits:
            self.log.warning("%s's server runs without limits (--no-limits): %s", self.user.name, cgroups.why())
        else:  # fail closed: `course hub` refused already; this guards a hub started from the file alone
            raise RuntimeError(f"no memory and process limit can be set for a server here: {cgroups.why()}")
        return await super().start()

    async def stop(self, now=False):
        await super().stop(now=now)
        # kernels and terminals run in sessions of their own: whatever outlived the server goes too
        if cgroups.available():
            cgroups.UserCgroup(self.cgroup_parent, self.user.name).remove()

    _cgroup = None

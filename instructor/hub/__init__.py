"""One JupyterHub for the class: ``course hub`` writes its configuration from the course directory and runs it.

- :mod:`~instructor.hub.staff`: who teaches (``<course dir>/staff.csv``, root's or an instructor's) and who is a
  student (the roster).
- :mod:`~instructor.hub.accounts`: a Unix account per person (isolation is Unix permissions), folder modes.
- :mod:`~instructor.hub.pinned`: the course directory's top folder sticky while root checks and loads its settings.
- :mod:`~instructor.hub.cgroups`: a memory, CPU and process budget per user's server (cgroup v2 or v1), per hub.
- :mod:`~instructor.hub.spawner`: :class:`CourseSpawner`, a local-process spawner inside that budget,
  students with the student tools only, staff in the course directory with the formgrader.
- :mod:`~instructor.hub.config`: the ``jupyterhub_config.py`` and the students' Jupyter settings.
- :mod:`~instructor.hub.run`: start JupyterHub in the foreground; Ctrl-C stops it and every server.
"""

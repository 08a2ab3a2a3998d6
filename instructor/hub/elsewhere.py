"""The same class past one machine: a Zero to JupyterHub values file, a DockerSpawner configuration
and the Dockerfile of the users' image both name.

All three come from the :class:`~instructor.hub.config.HubSettings` ``course hub``
uses: who may log in, who is admin, the course's groups and roles, memory and
CPU per user, the idle culler, and nbgrader's exchange, which here must be a
volume every user's server mounts (on Kubernetes a ReadWriteMany claim).
There are no Unix accounts in a pod or a container, so logins come from
NativeAuthenticator with the instructor's approval (no open sign-up; it runs
in the hub, so ``jupyterhub-nativeauthenticator`` belongs where the hub runs,
not in the users' image), and each
user's server runs under a uid of its own (10000 + the hub's user id), so the
exchange's write-only ``inbound`` still keeps students out of each other's
submissions.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from instructor.hub.config import HubSettings, student_nbgrader_config

#: where every user's server sees nbgrader's exchange (the students' nbgrader_config.py says so)
EXCHANGE_MOUNT = "/srv/nbgrader/exchange"
#: the claim (Kubernetes) or the named volume (Docker) that holds the exchange
EXCHANGE_VOLUME = "nbgrader-exchange"
#: one uid per user: 10000 + the hub's id of that user
UID_RULE = "lambda spawner: 10000 + spawner.user.id"
#: the Docker network the hub's container and every user's container join (DockerSpawner)
DOCKER_NETWORK = "course-hub"
#: the name of the hub's container on that network: how users' servers reach the hub's API
HUB_CONTAINER = "course-hub"


def _groups_and_roles(s: HubSettings) -> tuple[dict, list[dict]]:
    groups = {s.student_group: {"users": sorted(s.people.students)}, s.grader_group: {"users": sorted(s.people.staff)}}
    roles = [
        {
            "name": s.grader_group,
            "groups": [s.grader_group],
            "scopes": ["self", f"list:users!group={s.student_group}", f"read:users!group={s.student_group}"],
        }
    ]
    return groups, roles


def z2jh_values(s: HubSettings, image: str) -> dict:
    """Values for the ``jupyterhub`` Helm chart (Zero to JupyterHub), KubeSpawner underneath."""
    name, _, tag = image.partition(":")
    groups, roles = _groups_and_roles(s)
    return {
        "hub": {
            "config": {
                "JupyterHub": {"authenticator_class": "native", "load_groups": groups},
                "NativeAuthenticator": {"open_signup": False},
                "Authenticator": {
                    "allowed_users": sorted(s.people.everyone),
                    "admin_users": sorted(s.people.instructors),
                },
            },
            "loadRoles": {r["name"]: {k: v for k, v in r.items() if k != "name"} for r in roles},
            "extraConfig": {"courseUids": f"c.KubeSpawner.uid = {UID_RULE}\nc.KubeSpawner.fs_gid = 100\n"},
        },
        "singleuser": {
            "image": {"name": name, "tag": tag or "latest"},
            "defaultUrl": "/lab",
            "memory": {"limit": f"{s.memory_mb}M", "guarantee": f"{min(512, s.memory_mb)}M"},
            "cpu": {"limit": s.cpus, "guarantee": min(0.1, s.cpus)},
            "storage": {
                "extraVolumes": [{"name": "exchange", "persistentVolumeClaim": {"claimName": EXCHANGE_VOLUME}}],
                "extraVolumeMounts": [{"name": "exchange", "mountPath": EXCHANGE_MOUNT}],
            },
        },
        "cull": {"enabled": True, "timeout": s.idle_timeout},
    }


def kubespawner_config(values: dict) -> dict:
    """What the chart sets on KubeSpawner from ``values["singleuser"]`` (the part a test can load)."""
    user = values["singleuser"]
    return {
        "image": f"{user['image']['name']}:{user['image']['tag']}",
        "default_url": user["defaultUrl"],
        "mem_limit": user["memory"]["limit"],
        "mem_guarantee": user["memory"]["guarantee"],
        "cpu_limit": float(user["cpu"]["limit"]),
        "cpu_guarantee": float(user["cpu"]["guarantee"]),
        "volumes": user["storage"]["extraVolumes"],
        "volume_mounts": user["storage"]["extraVolumeMounts"],
        "fs_gid": 100,
    }


def docker_config(s: HubSettings, image: str) -> str:
    """A ``jupyterhub_config.py`` for DockerSpawner: one container per user, the exchange a named volume."""
    groups, roles = _groups_and_roles(s)
    return "\n".join(
        [
            f'"""JupyterHub with DockerSpawner for course {s.course_id} (written by `course hub`)."""',
            "c = get_config()  # noqa: F821",
            "c.JupyterHub.authenticator_class = 'native'",
            "c.NativeAuthenticator.open_signup = False  # the instructor approves each sign-up at /hub/authorize",
            f"c.Authenticator.allowed_users = {set(sorted(s.people.everyone))!r}",
            f"c.Authenticator.admin_users = {set(sorted(s.people.instructors))!r}",
            f"c.JupyterHub.load_groups = {json.dumps(groups)}",
            f"c.JupyterHub.load_roles = {json.dumps(roles)}",
            "c.JupyterHub.spawner_class = 'docker'",
            f"# the hub runs in a container named {HUB_CONTAINER!r} on the Docker network {DOCKER_NETWORK!r}",
            f"# (docker network create {DOCKER_NETWORK}); users' containers join it and reach the hub by that name",
            f"c.DockerSpawner.network_name = {DOCKER_NETWORK!r}",
            "c.JupyterHub.hub_ip = '0.0.0.0'",
            f"c.JupyterHub.hub_connect_ip = {HUB_CONTAINER!r}",
            f"c.DockerSpawner.image = {image!r}",
            "c.DockerSpawner.remove = True",
            "c.DockerSpawner.default_url = '/lab'",
            f"c.DockerSpawner.mem_limit = '{s.memory_mb}M'",
            f"c.DockerSpawner.cpu_limit = {s.cpus!r}",
            "c.DockerSpawner.notebook_dir = '/home/jovyan/work'",
            f"c.DockerSpawner.volumes = {{'course-home-{{username}}': '/home/jovyan/work', "
            f"{EXCHANGE_VOLUME!r}: {EXCHANGE_MOUNT!r}}}",
            "c.DockerSpawner.extra_create_kwargs = {'user': '0'}  # the image's start script drops to NB_UID",
            "c.DockerSpawner.environment = {'NB_UID': lambda spawner: str(10000 + spawner.user.id)}",
            f"c.JupyterHub.services = [{{'name': 'idle-culler', 'command': "
            f"['python3', '-m', 'jupyterhub_idle_culler', '--timeout={s.idle_timeout}']}}]",
            "c.JupyterHub.load_roles.append({'name': 'idle-culler', 'services': ['idle-culler'], 'scopes': "
            "['list:users', 'read:users:activity', 'read:servers', 'delete:servers']})",
            "",
        ]
    )


def dockerfile(s: HubSettings, image: str) -> str:
    """The Dockerfile of the users' image: the course from a wheel (no solutions/), the students' nbgrader settings."""
    students = student_nbgrader_config(replace(s, exchange=Path(EXCHANGE_MOUNT)))
    lines = [
        f"# The users' image {image}, named by z2jh-values.yaml and jupyterhub_config.docker.py (by `course hub`).",
        "# Build it in the course repository: only the wheel goes in, never solutions/ (hidden tests, answers):",
        "#   python -m pip wheel --no-deps -w dist . && \\",
        f"#   docker build -f <hub dir>/past-one-machine/Dockerfile -t {image} .",
        "FROM quay.io/jupyter/base-notebook:python-3.11",
        "USER root",
        "COPY dist/ /tmp/dist/",
        'RUN pip install --no-cache-dir "$(ls /tmp/dist/seqmodels_course-*.whl)[hub]" && rm -rf /tmp/dist',
        "# the students' nbgrader settings: course id, the exchange volume, submissions kept private",
        *(f"RUN echo {json.dumps(line)} >> /etc/jupyter/nbgrader_config.py" for line in students.splitlines() if line),
        "USER ${NB_UID}",
        "",
    ]
    return "\n".join(lines)


def write(s: HubSettings, image: str) -> list:
    """Write the three into ``<hub dir>/past-one-machine/``; returns their paths.

    The values file is JSON, which Helm reads as YAML.
    """
    folder = s.hub_dir / "past-one-machine"
    folder.mkdir(parents=True, exist_ok=True)
    values, docker, build = folder / "z2jh-values.yaml", folder / "jupyterhub_config.docker.py", folder / "Dockerfile"
    values.write_text(json.dumps(z2jh_values(s, image), indent=2) + "\n")
    docker.write_text(docker_config(s, image))
    build.write_text(dockerfile(s, image))
    return [values, docker, build]

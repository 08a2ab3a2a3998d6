"""The same class past one machine: a Zero to JupyterHub values file and a DockerSpawner configuration.

Both come from the :class:`~instructor.hub.config.HubSettings` ``course hub``
uses: who may log in, who is admin, the course's groups and roles, memory and
CPU per user, the idle culler, and nbgrader's exchange, which here must be a
volume every user's server mounts (on Kubernetes a ReadWriteMany claim).
There are no Unix accounts in a pod or a container, so logins come from
NativeAuthenticator with the instructor's approval (no open sign-up), and each
user's server runs under a uid of its own (10000 + the hub's user id), so the
exchange's write-only ``inbound`` still keeps students out of each other's
submissions.
"""

from __future__ import annotations

import json

from instructor.hub.config import HubSettings

#: where every user's server sees nbgrader's exchange (the students' nbgrader_config.py says so)
EXCHANGE_MOUNT = "/srv/nbgrader/exchange"
#: the claim (Kubernetes) or the named volume (Docker) that holds the exchange
EXCHANGE_VOLUME = "nbgrader-exchange"
#: one uid per user: 10000 + the hub's id of that user
UID_RULE = "lambda spawner: 10000 + spawner.user.id"


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
            "c.JupyterHub.hub_ip = '0.0.0.0'  # containers reach the hub over the Docker network",
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


def write(s: HubSettings, image: str) -> list:
    """Write both into ``<hub dir>/past-one-machine/``; returns their paths.

    The values file is JSON, which Helm reads as YAML.
    """
    folder = s.hub_dir / "past-one-machine"
    folder.mkdir(parents=True, exist_ok=True)
    values, docker = folder / "z2jh-values.yaml", folder / "jupyterhub_config.docker.py"
    values.write_text(json.dumps(z2jh_values(s, image), indent=2) + "\n")
    docker.write_text(docker_config(s, image))
    return [values, docker]

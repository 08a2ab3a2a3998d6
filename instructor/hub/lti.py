"""LTI 1.3 launches into ``course hub``: the LMS signs a student in, and she lands on her own server.

The instructor turns it on with one data file, ``<hub dir>/lti13.json`` (root's,
writable by root alone), holding what the LMS shows when the tool is
registered there::

    {"issuer": "https://canvas.instructure.com",
     "client_id": ["10000000000042"],
     "deployment_id": ["17:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"],
     "authorize_url": "https://sso.canvaslms.com/api/lti/authorize_redirect",
     "jwks_endpoint": "https://sso.canvaslms.com/api/lti/security/jwks"}

(``username_key``, the id_token's claim that names the person, is ``email`` unless
the file says otherwise. ``token_url``, ``memberships_url`` and ``lineitems_url``, the
platform's OAuth2 token endpoint and the course's NRPS and AGS endpoints, are read only by
``course lms``: :mod:`instructor.hub.lti_services`.) ``course hub`` then writes a configuration whose
authenticator is :class:`instructor.hub.lti_auth.CourseLTI13Authenticator` (only the hub imports that module:
JupyterHub's handlers take a second to import), jupyterhub-ltiauthenticator's
``LTI13Authenticator`` with what it leaves to the tool:

- the **deployment** is checked (the authenticator reads ``deployment_id`` nowhere):
  a launch from a deployment the file does not name is refused;
- a **nonce** is spent once: the authenticator checks it against a cookie only, so a
  captured launch replayed with its cookies logged in again; spent nonces are kept in
  ``state/lti13-spent-nonces.json`` until their token is stale, so a restart forgets none;
- the person lands under the **roster's id** (``Authenticator.username_map`` from
  ``state/usernames.json``: the roster's and ``staff.csv``'s e-mails), and only if the hub
  knows that id;
- the platform's **roles** never claim more than the course gives: ``staff.csv`` decides
  who is instructor and grader (their Unix accounts and group are made from it), and a
  launch whose role is Instructor (TeachingAssistant) for someone staff.csv does not name
  instructor (staff) is refused;
- each refusal is **one line** in the hub's log, ``LTI 1.3 launch refused: <why>``, and
  nobody is logged in;
- the state and nonce cookies are ``SameSite=None; Secure`` over HTTPS, so the LMS's
  cross-site form POST carries them (the browsers' default, ``Lax``, may drop them);
- the tool's own key pair is made once per course, ``state/lti13-tool-key.pem`` (root's,
  0600), and its public half is served at ``/hub/lti13/jwks`` for the LMS's registration.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

from instructor.errors import CourseError
from instructor.hub.staff import Untrusted, read_trusted

#: the file in the hub's folder that turns LTI 1.3 on
SETTINGS_NAME = "lti13.json"
#: the tool's private key, in the hub's state folder
KEY_NAME = "lti13-tool-key.pem"
#: what lti13.json may hold for ``course lms`` (the LMS's services): token endpoint, NRPS, AGS
SERVICE_URLS = ("token_url", "memberships_url", "lineitems_url")
#: what lti13.json must and may hold
REQUIRED = ("issuer", "client_id", "deployment_id", "authorize_url", "jwks_endpoint")
OPTIONAL = ("username_key", *SERVICE_URLS)
#: the claims of an LTI 1.3 id_token read here
ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
#: seconds after its ``iat`` an id_token is still taken (the authenticator's LTI13LaunchValidator.max_age)
MAX_AGE = 600
#: the spent nonces, beside the tool's key in the hub's state folder: a replay after a restart is refused too
SPENT_NONCES = "lti13-spent-nonces.json"
#: the course's roles, from the least to the most
RANKS = ("student", "grader", "instructor")


def read_settings(hub_dir: Path) -> dict[str, Any] | None:
    """The platform's values from ``<hub_dir>/lti13.json``, checked; None when there is no such file.

    Read on the open file and only if root's alone: the file decides whose keys sign people in."""
    path = hub_dir / SETTINGS_NAME
    try:
        text = read_trusted(path, {0, os.geteuid()})
    except FileNotFoundError:
        return None
    except Untrusted as err:
        raise CourseError(
            f"{path} could have been written by someone other than root ({err}): it names the platform whose "
            f"signature logs people in; read it, then `chown root: {path}` and `chmod 644` it."
        ) from None
    try:
        found = json.loads(text)
    except ValueError as err:
        raise CourseError(f"{path} is not JSON ({err}).") from None
    if not isinstance(found, dict):
        raise CourseError(f"{path} must hold one object: {{{', '.join(map(repr, REQUIRED))}}}.")
    missing = [k for k in REQUIRED if not found.get(k)]
    unknown = sorted(set(found) - set(REQUIRED) - set(OPTIONAL))
    if missing or unknown:
        raise CourseError(
            f"{path}: "
            + "; ".join(
                ([f"missing {', '.join(missing)}"] if missing else [])
                + ([f"unknown {', '.join(unknown)}"] if unknown else [])
            )
            + f" (it holds {', '.join(REQUIRED)}, and may hold {', '.join(OPTIONAL)}; docs/hub.md)."
        )
    settings: dict[str, Any] = {}
    for key in ("client_id", "deployment_id"):
        value = found[key]
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
            raise CourseError(f"{path}: {key} must be a string or a list of strings.")
        settings[key] = sorted(set(values))
    for key in ("issuer", "authorize_url", "jwks_endpoint", "username_key"):
        value = found.get(key, "email" if key == "username_key" else None)
        if not isinstance(value, str) or not value:
            raise CourseError(f"{path}: {key} must be a string.")
        if key != "username_key" and not value.startswith(("https://", "http://")):
            raise CourseError(f"{path}: {key} must be a URL ({value!r}).")
        settings[key] = value
    for key in SERVICE_URLS:
        value = found.get(key)
        if value is not None and not (isinstance(value, str) and value.startswith(("https://", "http://"))):
            raise CourseError(f"{path}: {key} must be a URL ({value!r}).")
        settings[key] = value
    if importlib.util.find_spec("ltiauthenticator") is None:
        raise CourseError(
            f"{path} turns LTI 1.3 on, but jupyterhub-ltiauthenticator is not installed: pip install '.[hub]'."
        ) from None
    return settings


def make_key(path: Path) -> bool:
    """The tool's RSA key at ``path`` (PEM, 0600), made if missing; True when made now."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    if path.exists():
        os.chmod(path, 0o600)
        return False
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    return True


def public_jwks(path: Path) -> dict[str, list[dict[str, str]]]:
    """The JSON Web Key Set of the tool's public key (kid: its RFC 7638 thumbprint)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey)
    numbers = key.public_key().public_numbers()

    def b64(n: int) -> str:
        return base64.urlsafe_b64encode(n.to_bytes((n.bit_length() + 7) // 8, "big")).rstrip(b"=").decode()

    jwk = {"e": b64(numbers.e), "kty": "RSA", "n": b64(numbers.n)}
    thumb = hashlib.sha256(json.dumps(jwk, separators=(",", ":"), sort_keys=True).encode()).digest()
    kid = base64.urlsafe_b64encode(thumb).rstrip(b"=").decode()
    return {"keys": [{**jwk, "kid": kid, "alg": "RS256", "use": "sig"}]}


def config_lines(lti: dict[str, Any], key: Path, instructors, graders) -> list[str]:
    """The lines of ``jupyterhub_config.py`` that make LTI 1.3 the way in (literal values only)."""
    return [
        "# LTI 1.3 (lti13.json): the LMS signs people in, in place of the passwords (docs/hub.md)",
        "c.JupyterHub.authenticator_class = 'instructor.hub.lti_auth.CourseLTI13Authenticator'",
        f"c.LTI13Authenticator.issuer = {lti['issuer']!r}",
        f"c.LTI13Authenticator.client_id = {set(lti['client_id'])!r}",
        f"c.LTI13Authenticator.authorize_url = {lti['authorize_url']!r}",
        f"c.LTI13Authenticator.jwks_endpoint = {lti['jwks_endpoint']!r}",
        f"c.LTI13Authenticator.username_key = {lti['username_key']!r}",
        f"c.CourseLTI13Authenticator.deployment_ids = {set(lti['deployment_id'])!r}",
        f"c.CourseLTI13Authenticator.instructors = {set(sorted(instructors))!r}",
        f"c.CourseLTI13Authenticator.graders = {set(sorted(graders))!r}",
        f"c.CourseLTI13Authenticator.tool_key = {str(key)!r}",
        f"c.CourseLTI13Authenticator.spent_nonces_file = {str(key.parent / SPENT_NONCES)!r}",
    ]


def lms_rank(roles) -> int:
    """The course role an LTI roles claim asks for, as an index of :data:`RANKS`.

    TeachingAssistant (a sub-role of Instructor, ``.../membership/Instructor#TeachingAssistant``,
    or ``...#TeachingAssistant`` alone) is grader even beside Instructor, the principal role a platform sends with it;
    Instructor (``.../membership#Instructor`` or the short ``Instructor``) is instructor; anything else
    (Learner, Mentor, an institution's roles) is student."""
    names = [r for r in roles if isinstance(r, str)] if isinstance(roles, list) else []
    if any("TeachingAssistant" in r for r in names):
        return RANKS.index("grader")
    if any(r == "Instructor" or r.endswith("membership#Instructor") for r in names):
        return RANKS.index("instructor")
    return RANKS.index("student")

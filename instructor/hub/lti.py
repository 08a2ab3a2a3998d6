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
the file says otherwise.) ``course hub`` then writes a configuration whose
authenticator is :class:`CourseLTI13Authenticator`, jupyterhub-ltiauthenticator's
``LTI13Authenticator`` with what it leaves to the tool:

- the **deployment** is checked (the authenticator reads ``deployment_id`` nowhere):
  a launch from a deployment the file does not name is refused;
- a **nonce** is spent once: the authenticator checks it against a cookie only, so a
  captured launch replayed with its cookies logged in again;
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
  cross-site form POST carries them (browsers default to ``Lax``, which drops them);
- the tool's own key pair is made once per course, ``state/lti13-tool-key.pem`` (root's,
  0600), and its public half is served at ``/hub/lti13/jwks`` for the LMS's registration.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from instructor.errors import CourseError
from instructor.hub.staff import Untrusted, read_trusted

#: the file in the hub's folder that turns LTI 1.3 on
SETTINGS_NAME = "lti13.json"
#: the tool's private key, in the hub's state folder
KEY_NAME = "lti13-tool-key.pem"
#: what lti13.json must and may hold
REQUIRED = ("issuer", "client_id", "deployment_id", "authorize_url", "jwks_endpoint")
OPTIONAL = ("username_key",)
#: the claims of an LTI 1.3 id_token read here
ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
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
    try:
        import ltiauthenticator  # noqa: F401
    except ImportError:
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
        "c.JupyterHub.authenticator_class = 'instructor.hub.lti.CourseLTI13Authenticator'",
        f"c.LTI13Authenticator.issuer = {lti['issuer']!r}",
        f"c.LTI13Authenticator.client_id = {set(lti['client_id'])!r}",
        f"c.LTI13Authenticator.authorize_url = {lti['authorize_url']!r}",
        f"c.LTI13Authenticator.jwks_endpoint = {lti['jwks_endpoint']!r}",
        f"c.LTI13Authenticator.username_key = {lti['username_key']!r}",
        f"c.CourseLTI13Authenticator.deployment_ids = {set(lti['deployment_id'])!r}",
        f"c.CourseLTI13Authenticator.instructors = {set(sorted(instructors))!r}",
        f"c.CourseLTI13Authenticator.graders = {set(sorted(graders))!r}",
        f"c.CourseLTI13Authenticator.tool_key = {str(key)!r}",
    ]


def lms_rank(roles) -> int:
    """The course role an LTI roles claim asks for, as an index of :data:`RANKS`.

    TeachingAssistant (a sub-role of Instructor, ``.../membership/Instructor#TeachingAssistant``,
    or ``...#TeachingAssistant`` alone) is grader even beside Instructor, which Canvas sends with it;
    Instructor (``.../membership#Instructor`` or the short ``Instructor``) is instructor; anything else
    (Learner, Mentor, an institution's roles) is student."""
    names = [r for r in roles if isinstance(r, str)] if isinstance(roles, list) else []
    if any("TeachingAssistant" in r for r in names):
        return RANKS.index("grader")
    if any(r == "Instructor" or r.endswith("membership#Instructor") for r in names):
        return RANKS.index("instructor")
    return RANKS.index("student")


# The authenticator and its handlers import JupyterHub and the authenticator: only the hub loads them.
try:
    from jupyterhub.handlers import BaseHandler
    from ltiauthenticator.lti13.auth import LTI13Authenticator
    from ltiauthenticator.lti13.error import LoginError, ValidationError
    from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13LoginInitHandler
    from tornado.web import HTTPError
    from traitlets import Set, Unicode
except ImportError:  # pragma: no cover - `course hub` without the hub extra
    pass
else:

    class Refused(ValidationError):
        """A launch refused by the course's own checks."""

    class CourseLTI13LoginInitHandler(LTI13LoginInitHandler):
        """The OIDC login initiation; over HTTPS its cookies travel with the LMS's cross-site POST."""

        def _set_oauth_cookie(self, key: str, value):
            extra = {}
            if self.authenticator.get_uri_scheme(self.request) == "https":
                extra = {"samesite": "None", "secure": True}
            self._set_cookie(key, value, expires_days=1, httponly=True, encrypted=True, **extra)

    class CourseLTI13CallbackHandler(LTI13CallbackHandler):
        """The launch: the authenticator's checks, the deployment and a nonce spent once; a refusal is one line."""

        def decode_and_validate_launch_request(self) -> dict[str, Any]:
            id_token = super().decode_and_validate_launch_request()
            auth = self.authenticator
            deployment = id_token.get(DEPLOYMENT_CLAIM)
            if deployment not in auth.deployment_ids:
                raise Refused(f"unknown deployment id {deployment!r} (lti13.json names {sorted(auth.deployment_ids)})")
            auth.spend_nonce(id_token)
            return id_token

        async def post(self):
            try:
                await super().post()
            except HTTPError as err:
                why = err.log_message % err.args if err.log_message else err.reason or "refused"
                self.log.warning("LTI 1.3 launch refused: %s", why)
                # no log_message: tornado would log a second line; the page says why
                refusal = HTTPError(err.status_code)
                refusal.jupyterhub_message = f"The launch from your course page was refused: {why}"
                raise refusal from None

    class JWKSHandler(BaseHandler):
        """The tool's public key set, for the LMS's registration (the private key stays in the state folder)."""

        def get(self) -> None:
            self.set_header("Content-Type", "application/json")
            self.write(json.dumps(public_jwks(Path(self.authenticator.tool_key))))

    class CourseLTI13Authenticator(LTI13Authenticator):
        """LTI13Authenticator, with the deployment, a nonce spent once, the roster's ids and the course's roles."""

        login_handler = CourseLTI13LoginInitHandler
        callback_handler = CourseLTI13CallbackHandler

        deployment_ids = Set(Unicode(), help="the platform's deployment ids this hub takes launches from").tag(
            config=True
        )
        instructors = Set(Unicode(), help="the course's instructors (staff.csv)").tag(config=True)
        graders = Set(Unicode(), help="the course's graders (staff.csv)").tag(config=True)
        tool_key = Unicode(help="the tool's private key (PEM), root's alone").tag(config=True)

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._spent: dict[str, float] = {}  # nonce -> until when it is kept

        def get_handlers(self, app):
            return [*super().get_handlers(app), ("/lti13/jwks", JWKSHandler)]

        def spend_nonce(self, id_token: dict[str, Any]) -> None:
            """Refuse a nonce seen before; keep each until its token could no longer be taken anyway."""
            now = time.time()
            self._spent = {n: until for n, until in self._spent.items() if until > now}
            nonce = id_token.get("nonce")
            if not isinstance(nonce, str) or not nonce:
                raise Refused("the id_token has no nonce")
            if nonce in self._spent:
                raise Refused("replayed nonce: this id_token was already used to log in")
            keep = max(float(id_token.get("exp", now)), float(id_token.get("iat", now)) + 600) + 600
            self._spent[nonce] = keep

        async def authenticate(self, handler, data=None):
            model = await super().authenticate(handler, data)
            token = data or {}
            claimed = model["name"]
            name = self.normalize_username(claimed)
            if name not in self.allowed_users:
                raise LoginError(
                    f"{claimed!r} is neither on the roster nor in staff.csv (by e-mail, state/usernames.json, or id)"
                )
            course = "instructor" if name in self.instructors else "grader" if name in self.graders else "student"
            asked = lms_rank(token.get(ROLES_CLAIM))
            if asked > RANKS.index(course):
                raise LoginError(
                    f"the platform says {RANKS[asked]} for {name}, who is {course} in this course "
                    "(staff.csv decides; add her there and restart course hub)"
                )
            self.log.info("LTI 1.3 launch: %s logs in (%s in this course)", name, course)
            return {**model, "name": name}

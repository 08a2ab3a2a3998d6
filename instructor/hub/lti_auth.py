"""The hub's side of LTI 1.3: jupyterhub-ltiauthenticator's LTI13Authenticator with the course's checks.

What it adds, and why: :mod:`instructor.hub.lti` (which ``course hub`` imports; JupyterHub imports this).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from jupyterhub.handlers import BaseHandler
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.error import LoginError, ValidationError
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13ConfigHandler, LTI13LoginInitHandler
from tornado.web import HTTPError
from traitlets import Set, Unicode

from instructor.coursedir.atomic import write_own
from instructor.hub.lti import DEPLOYMENT_CLAIM, MAX_AGE, RANKS, ROLES_CLAIM, lms_rank, public_jwks


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


class CourseLTI13ConfigHandler(LTI13ConfigHandler):
    """The tool's JSON configuration (Canvas's *Enter URL*), with the tool's key set, which Canvas requires."""

    def write(self, chunk):
        if isinstance(chunk, str):  # the authenticator writes its configuration as one JSON text
            tool = json.loads(chunk)
            tool["public_jwk_url"] = tool["oidc_initiation_url"].rsplit("/", 1)[0] + "/jwks"
            chunk = json.dumps(tool)
        super().write(chunk)


class JWKSHandler(BaseHandler):
    """The tool's public key set, for the LMS's registration (the private key stays in the state folder)."""

    def get(self) -> None:
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps(public_jwks(Path(self.authenticator.tool_key))))


class CourseLTI13Authenticator(LTI13Authenticator):
    """LTI13Authenticator, with the deployment, a nonce spent once, the roster's ids and the course's roles."""

    login_handler = CourseLTI13LoginInitHandler
    callback_handler = CourseLTI13CallbackHandler
    config_handler = CourseLTI13ConfigHandler

    deployment_ids = Set(Unicode(), help="the platform's deployment ids this hub takes launches from").tag(config=True)
    instructors = Set(Unicode(), help="the course's instructors (staff.csv)").tag(config=True)
    graders = Set(Unicode(), help="the course's graders (staff.csv)").tag(config=True)
    tool_key = Unicode(help="the tool's private key (PEM), root's alone").tag(config=True)
    spent_nonces_file = Unicode(
        "", help="where spent nonces are kept (root's state folder), so a restart does not forget them"
    ).tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._spent: dict[str, float] = self._read_spent()  # nonce -> until when it is kept

    def _read_spent(self) -> dict[str, float]:
        """The nonces spent before the hub (re)started and not yet stale; an unreadable file keeps none, said once."""
        if not self.spent_nonces_file:
            return {}
        try:
            with open(self.spent_nonces_file, encoding="utf-8") as f:
                kept = json.load(f)
            now = time.time()
            return {str(n): float(until) for n, until in kept.items() if float(until) > now}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, AttributeError, TypeError) as err:
            self.log.warning(
                "LTI 1.3: the spent nonces in %s cannot be read (%s); starting with none", self.spent_nonces_file, err
            )
            return {}

    def _keep_spent(self) -> None:
        """Write the spent nonces whole (a file beside it, renamed into place), readable by the hub alone."""
        if not self.spent_nonces_file:
            return
        write_own(Path(self.spent_nonces_file), json.dumps(self._spent), 0o600)

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
        # the token is taken only before its exp and within MAX_AGE of its iat; a minute more for clocks
        self._spent[nonce] = max(float(id_token.get("exp", now)), float(id_token.get("iat", now)) + MAX_AGE) + 60
        self._keep_spent()

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

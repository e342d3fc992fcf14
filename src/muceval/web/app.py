"""The adjudication page, a Starlette application. A request without the session's token, or
addressed to another host than the loopback address (DNS rebinding), is refused; one lock
serialises the session, as the pages may be open in several tabs.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from muceval.errors import InputError, MucevalError
from muceval.scoring.adjudication import ANSWERS, Adjudication, Answer, Question
from muceval.version import __version__
from muceval.web.views import (
    fill_text,
    question_view,
    score_changes,
    scores_view,
    template_rows,
)

__all__ = ["create_app", "environment"]


def environment() -> jinja2.Environment:
    """The page templates (``web/templates``, extending the report's ``base.html.j2``)."""
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.PackageLoader("muceval.web", "templates"),
                                    jinja2.PackageLoader("muceval.reporting", "templates")]),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def create_app(session: Adjudication, token: str, texts: Mapping[str, str] | None = None,
               hosts: tuple[str, ...] = ("127.0.0.1", "localhost")) -> Starlette:
    """The application; ``session`` must be open (entered) while it serves."""
    pages = _Pages(session, token, texts, hosts)
    routes = [
        # The browser asks for an icon at the root, without the token: an empty answer, not a
        # refusal logged on every page.
        Route("/favicon.ico", _no_icon),
        Route("/{token}/", pages.guarded(pages.queue)),
        Route("/{token}/q/{qid}", pages.guarded(pages.question)),
        Route("/{token}/answer", pages.posted(pages.answer), methods=["POST"]),
        Route("/{token}/undo", pages.posted(pages.undo), methods=["POST"]),
        Route("/{token}/map/{system}/{message}", pages.guarded(pages.mapping)),
        Route("/{token}/map/{system}/{message}", pages.posted(pages.remap), methods=["POST"]),
        Route("/{token}/scores", pages.guarded(pages.scores)),
    ]
    return Starlette(routes=routes)


Form = dict[str, str]
_FILTERS = ("system", "message", "slot")


def _no_icon(request: Request) -> Response:
    return Response(status_code=204)


def _from_another_site(request: Request, hosts: tuple[str, ...]) -> bool:
    """Whether the browser says a POST comes from a page not served here."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return True
    origin = request.headers.get("origin")
    if origin is None:
        return False
    host = urlsplit(origin).hostname
    return host is None or host not in hosts


class _Pages:
    """The handlers; each runs under the one lock, after the host and token checks."""

    def __init__(self, session: Adjudication, token: str, texts: Mapping[str, str] | None,
                 hosts: tuple[str, ...]) -> None:
        self.session, self.token, self.texts, self.hosts = session, token, texts, hosts
        self.env = environment()
        self.lock = threading.Lock()
        self.base = f"/{token}"
        # The score views by name, with the session version they were computed at: every
        # page shows the table, which changes only with an answer, an undo or a mapping.
        self._views: dict[str, tuple[int, Any]] = {}

    def view(self, name: str, make: Callable[[Adjudication], Any]) -> Any:
        cached = self._views.get(name)
        if cached is None or cached[0] != self.session.version:
            cached = (self.session.version, make(self.session))
            self._views[name] = cached
        return cached[1]

    def page(self, name: str, request: Request, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("title", "muceval adjudicate: open questions")
        session = self.session
        # Only this page's own inline style and script run (a nonce per response): text from a
        # message or a response, shown on the page, can never be a script.
        nonce = secrets.token_urlsafe(16)
        html = self.env.get_template(name).render(
            nonce=nonce, version=__version__, base=self.base,
            counts={"open": len(session.questions), "answered": len(session.answered),
                    "reused": session.reused},
            scores=self.view("scores", scores_view), systems=session.names,
            history=session.history_path, notice=request.query_params.get("notice", ""),
            **context)
        return HTMLResponse(html, status_code=status, headers={
            "Content-Security-Policy": (f"default-src 'none'; script-src 'nonce-{nonce}'; "
                                        f"style-src 'nonce-{nonce}'; img-src 'self' data:; "
                                        "form-action 'self'; frame-ancestors 'none'; "
                                        "base-uri 'none'"),
            # same-origin, not no-referrer: with no-referrer the browser posts "Origin: null".
            "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
            "X-Content-Type-Options": "nosniff"})

    def _refused(self, request: Request) -> Response | None:
        host = (request.headers.get("host") or "").rsplit(":", 1)[0].strip("[]")
        if host not in self.hosts:
            return PlainTextResponse("refused: this page answers on the loopback address only",
                                     status_code=403)
        # As bytes: compare_digest refuses str with non-ASCII characters (a 500 for /%C3%A9/).
        given = request.path_params.get("token", "").encode("utf-8", "surrogateescape")
        if not secrets.compare_digest(given, self.token.encode("utf-8")):
            return PlainTextResponse("refused: the address lacks this session's token (see the "
                                     "URL muceval adjudicate printed)", status_code=403)
        return None

    def _run(self, handler: Callable[..., Response], request: Request, *args: Any) -> Response:
        refused = self._refused(request)
        if refused is not None:
            return refused
        with self.lock:
            try:
                return handler(request, *args)
            except MucevalError as error:
                return self.page("error.html.j2", request, status=400, message=str(error))

    def guarded(self, handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            return self._run(handler, request)
        return endpoint

    def posted(self, handler: Callable[[Request, Form], Response],
               ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            if _from_another_site(request, self.hosts):
                # A form posted by another page the browser has open (CSRF), even one that
                # guessed the token, answers nothing.
                return PlainTextResponse("refused: a form of another site", status_code=403)
            if self._refused(request) is None:
                form: Form = {k: str(v) for k, v in (await request.form()).items()}
            else:
                form = {}
            return self._run(handler, request, form)
        return endpoint

    def queue(self, request: Request) -> Response:
        session = self.session
        chosen = {k: request.query_params.get(k, "") for k in _FILTERS}
        shown = [q for q in session.questions if _matches(q, chosen)]
        return self.page("queue.html.j2", request, questions=shown, chosen=chosen,
                         messages=sorted({q.message_id for q in session.questions}),
                         slots=sorted({q.slot_id for q in session.questions}),
                         filters=urlencode({k: v for k, v in chosen.items() if v}),
                         answered=list(reversed(session.answered)), fill=_fill(session))

    def question(self, request: Request) -> Response:
        session = self.session
        found = next((q for q in session.questions if q.id == request.path_params["qid"]), None)
        if found is None:
            return RedirectResponse(f"{self.base}/?" + urlencode(
                {"notice": "that question is answered already"}), status_code=303)
        return self.page("question.html.j2", request, title=f"muceval adjudicate: question "
                         f"{found.number} of {session.total}",
                         **question_view(session, found, self.texts),
                         filters=request.query_params.get("filters", ""))

    def answer(self, request: Request, form: Form) -> Response:
        question_id, kind = form.get("question", ""), form.get("answer", "")
        filters = form.get("filters", "")
        if kind == "skip":
            return _next(self.base, self.session, question_id, filters, skip=True)
        if kind not in ANSWERS:
            raise InputError.at("<form>", None, f"unknown answer {kind!r}")
        which = form.get("which", "1") or "1"
        # ASCII digits only ('²' is a digit to str.isdigit, not to int) and short enough for int.
        if not (which.isascii() and which.isdigit() and len(which) <= 6):
            raise InputError.at("<form>", None, f"key fill {which[:20]!r} is not a number")
        # Saved before the redirect: a page that shows the answer has it on disk.
        self.session.answer(question_id, kind, int(which) - 1)
        return _next(self.base, self.session, question_id, filters)

    def undo(self, request: Request, form: Form) -> Response:
        last = self.session.undo()
        again = next((q for q in self.session.questions if q.id == last.question.id), None)
        target = f"{self.base}/q/{again.id}" if again else f"{self.base}/"
        return RedirectResponse(target + "?" + urlencode(
            {"notice": _taken_back(self.session, last)}), status_code=303)

    def mapping(self, request: Request) -> Response:
        session = self.session
        system, message_id = request.path_params["system"], request.path_params["message"]
        keys, responses = session.templates(system, message_id)
        entries = session.mapping_of(system, message_id)
        by_id = ({t.template_id: t for t in keys}, {t.template_id: t for t in responses})
        pairs = [{"key": p.key_id, "response": p.response_id,
                  "rows": template_rows(session.config, by_id[0].get(p.key_id or ""),
                                        by_id[1].get(p.response_id or ""))} for p in entries]
        return self.page("mapping.html.j2", request,
                         title=f"Mapping of {message_id} for {system}", system=system,
                         message=message_id, keys=list(by_id[0]), responses=list(by_id[1]),
                         mapped={p.response_id: p.key_id for p in entries
                                 if p.response_id is not None},
                         pairs=pairs, manual=session.is_manual(system, message_id),
                         back=self._back(request.query_params.get("back", "")))

    def remap(self, request: Request, form: Form) -> Response:
        system, message_id = request.path_params["system"], request.path_params["message"]
        back = self._back(form.get("back", ""))
        if form.get("automatic"):
            self.session.remap(system, message_id, None)
            return RedirectResponse(back, status_code=303)
        keys, responses = self.session.templates(system, message_id)
        chosen = {r.template_id: form.get(f"key-for-{r.template_id}", "") or None
                  for r in responses}
        pairs: list[tuple[str | None, str | None]] = []
        for k in keys:
            matched = [r for r, key in chosen.items() if key == k.template_id]
            if len(matched) > 1:
                raise InputError.at("<form>", None, f"key template {k.template_id} is chosen "
                                    f"for responses {', '.join(matched)}: one response per key "
                                    "template")
            pairs.append((k.template_id, matched[0] if matched else None))
        pairs += [(None, r) for r, key in chosen.items() if key is None]
        self.session.remap(system, message_id, pairs)
        return RedirectResponse(back, status_code=303)

    def _back(self, given: str) -> str:
        return given if given.startswith(self.base + "/") else f"{self.base}/"

    def scores(self, request: Request) -> Response:
        return self.page("scores.html.j2", request, title="Scores as they stand",
                         changes=self.view("changes", score_changes), fill=_fill(self.session),
                         answered=list(self.session.answered))


def _fill(session: Adjudication) -> Callable[[Question], str]:
    def fill(question: Question) -> str:
        return fill_text(question.response, session.config, question.slot_id)
    return fill


def _taken_back(session: Adjudication, last: Answer) -> str:
    """The notice after an undo: which question, and which answer, is open again."""
    question = last.question
    fill = fill_text(question.response, session.config, question.slot_id)
    given = last.answer
    if given in ("correct", "partial") and question.offered:
        credited = question.offered[min(last.which, len(question.offered) - 1)]
        given += f" (key fill {fill_text(credited, session.config, question.slot_id)})"
    return (f"answer to question {question.number} taken back: {question.message_id}, "
            f"{question.slot_id}, response fill {fill} was {given}")


def _matches(question: Question, chosen: Mapping[str, str]) -> bool:
    return ((not chosen["system"] or any(s == chosen["system"] for s, _ in question.systems))
            and (not chosen["message"] or question.message_id == chosen["message"])
            and (not chosen["slot"] or question.slot_id == chosen["slot"]))


def _next(base: str, session: Adjudication, question_id: str, filters: str,
          skip: bool = False) -> Response:
    """The next open question within the queue's filters; the queue when none is left."""
    parsed = parse_qs(filters)
    chosen = {k: parsed.get(k, [""])[0] for k in _FILTERS}
    # By place in the queue, not by number: a question first seen after an answer has a
    # higher number than its place in the 1992 order.
    places = {q.id: i for i, q in enumerate(session.questions)}
    after = places.get(question_id, -1)
    candidates = [q for q in session.questions if _matches(q, chosen) and q.id != question_id]
    later = [q for q in candidates if places[q.id] > after] if skip else candidates
    target = (later or candidates)
    suffix = "?" + urlencode({"filters": filters}) if filters else ""
    if not target:
        return RedirectResponse(f"{base}/?" + urlencode({"notice": "no open question left"}),
                                status_code=303)
    return RedirectResponse(f"{base}/q/{target[0].id}{suffix}", status_code=303)

"""The adjudication page: a Starlette application over one :class:`~muceval.scoring.adjudication.Adjudication`.

Every page lives under ``/<token>/``: a request without the session's token, or
addressed to another host than the loopback address it listens on (DNS
rebinding), is refused. Answers are POSTed forms; the history is saved before the
redirect to the next question is sent, so a page that shows the next question
has its answer on disk. One lock serialises the session: the pages may be open in
several tabs.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from muceval.errors import InputError, MucevalError
from muceval.scoring.adjudication import ANSWERS, Adjudication, Question
from muceval.version import __version__
from muceval.web.views import question_view, scores_view, template_rows

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
    env = environment()
    lock = threading.Lock()
    base = f"/{token}"

    def page(name: str, request: Request, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("title", "muceval adjudicate: open questions")
        html = env.get_template(name).render(
            version=__version__, base=base, counts=_counts(session), scores=scores_view(session),
            systems=session.names, history=session.history_path, notice=request.query_params.get(
                "notice", ""), **context)
        return HTMLResponse(html, status_code=status)

    def guarded(handler):
        def endpoint(request: Request) -> Response:
            host = (request.headers.get("host") or "").rsplit(":", 1)[0].strip("[]")
            if host not in hosts:
                return PlainTextResponse("refused: this page answers on the loopback address "
                                         "only", status_code=403)
            if not secrets.compare_digest(request.path_params.get("token", ""), token):
                return PlainTextResponse("refused: the address lacks this session's token "
                                         "(see the URL muceval adjudicate printed)",
                                         status_code=403)
            with lock:
                try:
                    return handler(request)
                except MucevalError as error:
                    return page("error.html.j2", request, status=400, message=str(error))
        return endpoint

    async def form_of(request: Request) -> dict[str, str]:
        form = await request.form()
        return {k: str(v) for k, v in form.items()}

    def queue(request: Request) -> Response:
        params = request.query_params
        chosen = {k: params.get(k, "") for k in ("system", "message", "slot")}
        shown = [q for q in session.questions if _matches(q, chosen)]
        return page("queue.html.j2", request, questions=shown, chosen=chosen,
                    messages=sorted({q.message_id for q in session.questions}),
                    slots=sorted({q.slot_id for q in session.questions}),
                    filters=urlencode({k: v for k, v in chosen.items() if v}),
                    answered=list(reversed(session.answered)), fill=_fill(session))

    def question(request: Request) -> Response:
        question_id = request.path_params["qid"]
        found = next((q for q in session.questions if q.id == question_id), None)
        if found is None:
            return RedirectResponse(_queue_url(base, request, "that question is answered "
                                               "already"), status_code=303)
        view = question_view(session, found, texts)
        return page("question.html.j2", request, title=f"muceval adjudicate: question "
                    f"{found.number} of {len(session.questions)}", **view,
                    filters=request.query_params.get("filters", ""))

    async def answer(request: Request) -> Response:
        form = await form_of(request)

        def act(request: Request) -> Response:
            question_id, kind = form.get("question", ""), form.get("answer", "")
            filters = form.get("filters", "")
            if kind == "skip":
                return _next(base, session, question_id, filters, skip=True)
            if kind not in ANSWERS:
                raise InputError.at("<form>", None, f"unknown answer {kind!r}")
            which = int(form.get("which", "1") or 1) - 1
            session.answer(question_id, kind, which)
            return _next(base, session, question_id, filters)
        return guarded(act)(request)

    async def undo(request: Request) -> Response:
        await form_of(request)

        def act(request: Request) -> Response:
            last = session.undo()
            again = next((q for q in session.questions if _same(q, last.question)), None)
            target = f"{base}/q/{again.id}" if again else f"{base}/"
            return RedirectResponse(target + "?" + urlencode(
                {"notice": f"answer to question {last.question.number} taken back"}),
                status_code=303)
        return guarded(act)(request)

    def mapping(request: Request) -> Response:
        system, message_id = request.path_params["system"], request.path_params["message"]
        keys, responses = session.templates(system, message_id)
        entries = session.mapping_of(system, message_id)
        mapped = {p.response_id: p.key_id for p in entries if p.response_id is not None}
        pairs = [{"key": k, "response": r,
                  "rows": template_rows(session.config, next((t for t in keys if t.template_id == k), None),
                                        next((t for t in responses if t.template_id == r), None))}
                 for k, r in ((p.key_id, p.response_id) for p in entries)]
        return page("mapping.html.j2", request, title=f"Mapping of {message_id} for {system}",
                    system=system, message=message_id, keys=[t.template_id for t in keys],
                    responses=[t.template_id for t in responses], mapped=mapped, pairs=pairs,
                    manual=session.is_manual(system, message_id),
                    back=request.query_params.get("back", f"{base}/"))

    async def remap(request: Request) -> Response:
        form = await form_of(request)

        def act(request: Request) -> Response:
            system, message_id = request.path_params["system"], request.path_params["message"]
            back = form.get("back", f"{base}/")
            if not back.startswith(base + "/"):
                back = f"{base}/"
            if form.get("automatic"):
                session.remap(system, message_id, None)
            else:
                keys, responses = session.templates(system, message_id)
                chosen = {r.template_id: form.get(f"key-for-{r.template_id}", "") or None
                          for r in responses}
                pairs: list[tuple[str | None, str | None]] = []
                for k in keys:
                    matched = [r for r, key in chosen.items() if key == k.template_id]
                    if len(matched) > 1:
                        raise InputError.at("<form>", None, f"key template {k.template_id} is "
                                            f"chosen for responses {', '.join(matched)}: one "
                                            "response per key template")
                    pairs.append((k.template_id, matched[0] if matched else None))
                pairs += [(None, r) for r, key in chosen.items() if key is None]
                session.remap(system, message_id, pairs)
            return RedirectResponse(back, status_code=303)
        return guarded(act)(request)

    def scores(request: Request) -> Response:
        return page("scores.html.j2", request, title="Scores as they stand")

    routes = [
        Route("/{token}/", guarded(queue)),
        Route("/{token}/q/{qid}", guarded(question)),
        Route("/{token}/answer", answer, methods=["POST"]),
        Route("/{token}/undo", undo, methods=["POST"]),
        Route("/{token}/map/{system}/{message}", guarded(mapping)),
        Route("/{token}/map/{system}/{message}", remap, methods=["POST"]),
        Route("/{token}/scores", guarded(scores)),
    ]
    return Starlette(routes=routes)


def _counts(session: Adjudication) -> dict[str, int]:
    return {"open": len(session.questions), "answered": len(session.answered),
            "reused": session.reused}


def _fill(session: Adjudication):
    from muceval.web.views import fill_text

    def fill(question: Question) -> str:
        return fill_text(question.response, session.config, question.slot_id)
    return fill


def _matches(question: Question, chosen: Mapping[str, str]) -> bool:
    return ((not chosen["system"] or any(s == chosen["system"] for s, _ in question.systems))
            and (not chosen["message"] or question.message_id == chosen["message"])
            and (not chosen["slot"] or question.slot_id == chosen["slot"]))


def _same(a: Question, b: Question) -> bool:
    return a.id == b.id


def _queue_url(base: str, request: Request, notice: str) -> str:
    return f"{base}/?" + urlencode({"notice": notice})


def _next(base: str, session: Adjudication, question_id: str, filters: str,
          skip: bool = False) -> Response:
    """The next open question after the one just answered (or skipped), in 1992 order and
    within the queue's filters; the queue when none is left."""
    from urllib.parse import parse_qs

    chosen = {k: v[0] for k, v in parse_qs(filters).items() if k in ("system", "message", "slot")}
    chosen = {k: chosen.get(k, "") for k in ("system", "message", "slot")}
    current = next((q for q in session.questions if q.id == question_id), None)
    numbers = {q.id: q.number for q in session.questions}
    after = numbers.get(question_id, 0) if current is not None else 0
    candidates = [q for q in session.questions if _matches(q, chosen) and q.id != question_id]
    later = [q for q in candidates if q.number > after] if skip else candidates
    target = (later or candidates)
    suffix = "?" + urlencode({"filters": filters}) if filters else ""
    if not target:
        return RedirectResponse(f"{base}/?" + urlencode({"notice": "no open question left"}),
                                status_code=303)
    return RedirectResponse(f"{base}/q/{target[0].id}{suffix}", status_code=303)

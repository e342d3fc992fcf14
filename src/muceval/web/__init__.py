"""The adjudication page: ``muceval adjudicate`` served on 127.0.0.1 (Starlette, Jinja2)."""

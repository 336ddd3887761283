"""The judge's website (FastAPI, Jinja2): accounts, uploads, live submission states, admin.

- `app`: `create_app(store, contest, secret_key)`, the pages.
- `auth`: the cookie-signing key file, sessions, CSRF tokens, sign-up checks.
- `serve`: `serve(contest_path, ...)`, the website and its workers in one command.
"""

"""Library side of the classroom pages: experiments as plain functions, no Streamlit.

Each page in ``pages/`` is a thin view over one module here, so every number a
page shows is also pinned by a test. Deliberately wrong code (the pitfalls)
lives here as demo code, never in the engine.
"""

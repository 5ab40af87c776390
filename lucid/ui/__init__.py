"""The Streamlit app layer: the pages' pieces, one folder per feature.

- ``playground``: editor, view controls, the player, inspector, inputs table, forward mode, links.
- ``projector``: Projector (Classroom) mode, ``classroom=1`` in a link.
- ``live_class``: the live class: teacher's panel, students' banner and question, room feeds and watchers.
- ``lesson_plan``: a teacher's plan of links stepped by the clicker.
- ``lesson_pages``: sections of the lesson pages beyond one call.
- ``runtime``: navigation entry, browser and rerun gates, cancelling, shutdown, process cache, language.

What these show is computed by the Streamlit-free model in ``lucid.session``, ``lucid.viz`` and the engine;
nothing below this package imports it. Importing this package imports no Streamlit.
"""

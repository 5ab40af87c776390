"""A teacher's lesson plan on the Playground: links stepped by the clicker (the plan itself:
``lucid.session.lesson_plan``). Not the lesson pages (``lucid.ui.lesson_pages``).
"""

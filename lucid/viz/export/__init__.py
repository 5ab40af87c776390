"""Pictures beyond the screen: SVG, PNG, GIF, zip and 16:9 slides.
"""

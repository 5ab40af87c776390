"""The words of a step: the chain rule in the program's names and numbers, the formulas, the
headline entry and the lens card.
"""

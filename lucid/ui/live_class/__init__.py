"""The live class on the Playground: the teacher's panel, the students' banner and question, and
the rooms service, feeds and watchers behind them (rooms themselves: ``lucid.live_class``).
"""

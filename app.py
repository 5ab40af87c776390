"""Lucid Graph Lab: entry point (the Playground is built in the app issue)."""
import streamlit as st

st.title("Lucid Graph Lab")

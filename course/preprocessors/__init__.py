"""nbgrader preprocessors of the course, one small class per module."""

"""nbgrader settings of every student's server past one machine (copied into the users' image by the Dockerfile).

The settings `course hub` writes for its own students' servers, with the exchange where every pod or container
mounts it (tests/hub/test_elsewhere.py checks that the two agree).
"""

c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "seqmodels"
c.Exchange.root = "/srv/nbgrader/exchange"
# the exchange's root is root's 0755 (docs/trust.md): skip nbgrader's check that it is world-writable
c.CourseDirectory.groupshared = True
# a submission folder 0755, not nbgrader's 0777
c.ExchangeFactory.submit = "instructor.hub.student.PrivateSubmit"
# 'view feedback' shows the feedback page (selected in its folder), not only the folder
c.ExchangeFactory.list = "instructor.hub.student.FeedbackPageList"

"""course lms: the LMS's roster (NRPS) beside the course's, and the grades back into the LMS (AGS), over LTI 1.3.

One new command, not an action of ``course roster`` or ``course export``:
both of its actions are calls to the LMS signed with the tool's key, which
is root's alone in the hub's state folder, so they share what those two do
not need, the hub's folder (``--hub-dir``, its ``lti13.json``) and root.
``course roster import`` stays the way a CSV comes in (``lms roster --add``
goes through the same import), and ``course export`` stays the one place
grades are computed (``lms grades`` sends its rows).
"""

from __future__ import annotations

from pathlib import Path

from instructor.cli.options import add_course_dir
from instructor.coursedir import directory
from instructor.coursedir.course_dir import ROSTER_NAME, CourseDir
from instructor.coursedir.roster import read_roster_file
from instructor.errors import CourseError
from instructor.hub import lti_grades, lti_roster
from instructor.hub.lti_services import AGS_SCOPES, MEMBERSHIPS, NRPS_SCOPE, Services
from instructor.hub.staff import people, recorded_instructors
from instructor.reporting.canvas import LISTED
from instructor.settings import COURSE_ID

NAME = "lms"
HELP = (
    "LTI 1.3 services of the LMS the hub takes launches from: check (or fill) the roster from its membership "
    "list, send the final grades to its gradebook."
)
EXAMPLES = f"""\
what it needs (as root: the tool's key is root's alone):
  <hub-dir>/lti13.json   with token_url, memberships_url and lineitems_url (docs/hub.md, LTI services)
  <hub-dir>/state/lti13-tool-key.pem   made by `course hub`; its public half is the key set the LMS has

course lms roster        lists each difference between the LMS's members and <dir>/{ROSTER_NAME} and
                         staff.csv: people on one side only, inactive members, roles that differ
                         (Instructor -> instructor, TeachingAssistant -> grader, Learner -> student);
                         exits 1 if there is any. Nobody is removed anywhere.
  --add                  also adds the LMS's Learners the roster lacks to it (as `course roster import`
                         does; id: the LMS's student number, else the e-mail before @). staff.csv is
                         never written: root decides who is staff.
course lms grades        sends each final grade of `course export` to the LMS: one line item per
                         assignment whose due date has passed, the score (late penalty included) of each
                         complete submission, 0 for nothing submitted; nothing for work still waiting for
                         a grader, flagged or not graded. A score the LMS already holds is not sent again.
  --dry-run              only says what would be sent (no call to the LMS)

examples:
  sudo course lms roster --course-dir /srv/seqmodels-grading
  sudo course lms roster --add
  sudo course lms grades --dry-run
  sudo course lms grades
"""


def add_arguments(p):
    p.add_argument("action", choices=["roster", "grades"], help="roster: check (or --add); grades: send")
    add_course_dir(p)
    p.add_argument(
        "--hub-dir",
        type=Path,
        default=None,
        help=f"the hub's configuration and state (default: /srv/course-hub/{COURSE_ID})",
    )
    p.add_argument("--add", action="store_true", help="roster: add the LMS's Learners the roster lacks")
    p.add_argument("--dry-run", action="store_true", help="grades: say what would be sent, send nothing")


def run(args) -> int:
    course_path = directory.resolve(args.course_dir)
    print(f"course directory: {course_path}")
    course_dir = CourseDir.at(course_path)
    hub_dir = (args.hub_dir or Path("/srv/course-hub") / COURSE_ID).resolve()
    if args.add and args.action != "roster":
        raise CourseError("--add goes with `course lms roster`.")
    if args.dry_run and args.action != "grades":
        raise CourseError("--dry-run goes with `course lms grades`.")
    if args.action == "roster":
        return _roster(course_dir, hub_dir, args.add)
    return _grades(course_dir, hub_dir, args.dry_run)


def comparison(services: Services, course_dir: CourseDir, hub_dir: Path) -> lti_roster.Comparison:
    """The LMS's members beside the roster and staff.csv, read as `course hub` reads them."""
    who = people(course_dir, recorded_instructors(hub_dir / "state"))
    staff = {n: "instructor" for n in who.instructors} | {n: "grader" for n in who.graders}
    staff_emails = {e: n for e, n in who.emails.items() if n in staff}
    assert services.memberships_url
    found = services.get_all(services.memberships_url, MEMBERSHIPS, "the membership list", key="members")
    members = lti_roster.members(found)
    print(f"LMS: {len(members)} member(s) at {services.memberships_url}")
    rows = read_roster_file(course_dir.roster_file)
    return lti_roster.compare(members, rows, staff, staff_emails)


def _roster(course_dir: CourseDir, hub_dir: Path, add: bool) -> int:
    services = Services.from_hub(hub_dir, (NRPS_SCOPE,))
    c = comparison(services, course_dir, hub_dir)
    print(f"matched: {len(c.matched)} of the course's people")
    if add and c.lms_students:
        from instructor.coursedir.roster import ROSTER_COLUMNS, import_roster

        rows = read_roster_file(course_dir.roster_file)
        new, refused = lti_roster.new_rows(c.lms_students, {r["id"] for r in rows} | set(c.matched))
        if new:
            import csv
            import tempfile

            with tempfile.TemporaryDirectory() as tmp:
                source = Path(tmp) / "from-lms.csv"
                with source.open("w", newline="") as f:
                    writer = csv.DictWriter(f, fieldnames=ROSTER_COLUMNS)
                    writer.writeheader()
                    writer.writerows(new)
                added, _ = import_roster(course_dir, source)
            print(f"roster: {added} student(s) added from the LMS: {', '.join(r['id'] for r in new)}")
            print("  restart `course hub` to give them accounts")
        if refused:
            print(f"not added: {len(refused)}")
            print("\n".join(refused))
        c = comparison(services, course_dir, hub_dir)
    lines = c.lines()
    print("\n".join(lines) if lines else "the roster, staff.csv and the LMS agree")
    return 1 if c.differences else 0


def _grades(course_dir: CourseDir, hub_dir: Path, dry_run: bool) -> int:
    the_plan = lti_grades.plan(course_dir)
    for name, why in the_plan.not_due:
        print(f"  {name}: nothing sent ({why})")
    print(
        f"grades: {len(the_plan.assignments)} assignment(s) due, {len(the_plan.scores)} final score(s), "
        f"{len(the_plan.held)} held back"
    )
    for student, name, why in the_plan.held[:LISTED]:
        print(f"  held: {student} {name}: {why}")
    if len(the_plan.held) > LISTED:
        print(f"  ... and {len(the_plan.held) - LISTED} more (`course export` lists every status and reason)")
    if dry_run or not the_plan.assignments:
        return 0
    services = Services.from_hub(hub_dir, (NRPS_SCOPE, *AGS_SCOPES))
    c = comparison(services, course_dir, hub_dir)
    done = lti_grades.send(services, the_plan, c.user_ids())
    print(
        f"LMS: {len(done.items_made)} line item(s) made, {len(done.items_updated)} updated; "
        f"{len(done.sent)} score(s) sent, {done.unchanged} unchanged"
    )
    for score in done.sent:
        print(f"  sent: {score.student} {score.assignment}: {score.given:g} of {score.maximum:g}")
    if done.not_in_lms:
        print(f"not sent, not in the LMS (or not active there): {len(done.not_in_lms)}")
        print("\n".join(f"  {student} {name}" for student, name in done.not_in_lms))
    return 1 if done.not_in_lms else 0

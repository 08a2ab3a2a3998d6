{#- nbgrader 0.9.6's Manage Submissions page (BSD-3-Clause, Copyright (c) 2014-, Project Jupyter
    Contributors), extended: no Autograde button (its column is hidden; its API refuses, see
    instructor.reporting.formgrader_pages) and a note saying which command grades; the assignment id
    reaches the script as JSON, never as script text. -#}
{%- extends 'nbgrader/manage_submissions.tpl' -%}

{%- block head -%}
<script type="application/json" id="course-assignment-id">{{ assignment_id | tojson }}</script>
<script>
var assignment_id = JSON.parse(document.getElementById("course-assignment-id").textContent);
</script>
<style>th.autograde, td.autograde { display: none; }</style>
<script src="{{ base_url | e }}/formgrader/static/js/manage_submissions.js"></script>
{%- endblock head -%}

{%- block breadcrumbs -%}
<ol class="breadcrumb">
  <li><a href="{{ base_url | e }}/formgrader/manage_assignments">Assignments</a></li>
  <li class="active">{{ assignment_id | e }}</li>
</ol>
{%- endblock -%}

{%- block messages -%}
<div class="alert alert-info" id="course-grading-note">
  <b>Grading is done by <code>course grade</code></b>, not here: it runs every submission in the course's
  sandbox (as root), records scores, flags and late penalties, and keeps the hand grades you give in this
  formgrader. Run <code>sudo course grade --course-dir {{ course_dir | e }}</code> (add
  <code>--student ID</code> for one student), then reload this page. The formgrader's Autograde button is
  removed: nbgrader's autograde deleted the graded notebook before the sandbox refused to run it.
</div>
{%- endblock -%}

{%- block table_header -%}
<tr>
  <th>Student Name</th>
  <th class="text-center">Student ID</th>
  <th class="text-center">Timestamp</th>
  <th class="text-center">Status</th>
  <th class="text-center">Score</th>
  <th class="text-center no-sort autograde">Autograde</th>
  <th class="text-center no-sort">Generate Feedback</th>
  <th class="text-center no-sort">Release Feedback</th>
</tr>
{%- endblock -%}

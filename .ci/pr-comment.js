// Posts a Markdown file as a pull-request comment, or updates the one this job posted before
// (found by a hidden marker), so that each push leaves one current summary per job.
// Used from actions/github-script: require('./.ci/pr-comment.js')({github, context}, 'cpu', 'summary.md')
const fs = require('fs');

module.exports = async ({ github, context }, job, path) => {
  const marker = `<!-- solve_bench bench ${job} -->`;
  const body = `${marker}\n${fs.readFileSync(path, 'utf8')}`;
  const { owner, repo } = context.repo;
  const issue_number = context.issue.number;
  const comments = await github.paginate(github.rest.issues.listComments, { owner, repo, issue_number });
  const previous = comments.find((c) => c.body && c.body.startsWith(marker));
  if (previous) {
    await github.rest.issues.updateComment({ owner, repo, comment_id: previous.id, body });
  } else {
    await github.rest.issues.createComment({ owner, repo, issue_number, body });
  }
};

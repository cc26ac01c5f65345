// Posts the benchmark gate's summary as a pull-request comment, or updates the one this job
// posted before (found by a hidden marker), so that each push leaves one current summary per job.
// The summary (.ci/bench-pr's summary.md) gives each row's noise as compare measured it; the
// history (tools/track analyze --markdown, from the nightly store on the bench-data branch)
// says whether a row moved in recent nights; without one, the comment says there is none.
// Used from actions/github-script:
//   require('./head/.ci/pr-comment.js')({github, context}, 'cpu', 'summary.md', 'history.md')
const fs = require('fs');

const LIMIT = 65000; // GitHub refuses a comment body over 65536 characters

function read(path) {
  try {
    return path ? fs.readFileSync(path, 'utf8') : '';
  } catch (e) {
    if (e.code === 'ENOENT') return '';
    throw e;
  }
}

function body(job, summaryPath, historyPath) {
  const marker = `<!-- solve_bench bench ${job} -->`;
  const history = read(historyPath).trim();
  const parts = [
    marker,
    read(summaryPath).trim(),
    '## Recent history (nightly runs)',
    history ||
      'No history: this job found no `bench-data` branch (the store that `.github/workflows/nightly.yml` ' +
        'keeps), so whether a row moved in recent nights is not known.',
  ];
  let text = parts.join('\n\n') + '\n';
  if (text.length > LIMIT) {
    const note = '\n\n… cut at GitHub\'s comment limit: the whole summary is on the job page and in the artifact.\n';
    text = text.slice(0, LIMIT - note.length) + note;
  }
  return text;
}

module.exports = async ({ github, context }, job, summaryPath, historyPath) => {
  const text = body(job, summaryPath, historyPath);
  const marker = text.slice(0, text.indexOf('\n'));
  const { owner, repo } = context.repo;
  const issue_number = context.issue.number;
  const comments = await github.paginate(github.rest.issues.listComments, { owner, repo, issue_number });
  const previous = comments.find((c) => c.body && c.body.startsWith(marker));
  if (previous) {
    await github.rest.issues.updateComment({ owner, repo, comment_id: previous.id, body: text });
  } else {
    await github.rest.issues.createComment({ owner, repo, issue_number, body: text });
  }
};
module.exports.body = body;

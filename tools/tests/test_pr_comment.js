// .ci/pr-comment.js with a stand-in for actions/github-script's client: the comment it posts
// (the summary, then the history or a line saying there is none) and the update of its own.
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const post = require(path.join(__dirname, '..', '..', '.ci', 'pr-comment.js'));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pr-comment-'));
const summary = path.join(dir, 'summary.md');
const history = path.join(dir, 'history.md');
fs.writeFileSync(summary, '## solve_bench regression gate: passed\n\n| same | `CPU/dgesv/n:512/nrhs:1` | 2.1% / 1.9% |\n');

function client(existing) {
  const calls = [];
  const github = {
    paginate: async () => existing,
    rest: {
      issues: {
        listComments: 'listComments',
        createComment: async (args) => calls.push(['create', args]),
        updateComment: async (args) => calls.push(['update', args]),
      },
    },
  };
  const context = { repo: { owner: 'o', repo: 'r' }, issue: { number: 7 } };
  return { github, context, calls };
}

(async () => {
  // no history file: the comment says so
  let c = client([{ id: 1, body: 'someone else' }]);
  await post(c, 'cpu', summary, history);
  assert.strictEqual(c.calls.length, 1);
  assert.strictEqual(c.calls[0][0], 'create');
  let text = c.calls[0][1].body;
  assert.ok(text.startsWith('<!-- solve_bench bench cpu -->\n'), text);
  assert.ok(text.includes('`CPU/dgesv/n:512/nrhs:1` | 2.1% / 1.9%'), text);
  assert.ok(text.includes('No history: this job found no `bench-data` branch'), text);
  assert.strictEqual(c.calls[0][1].issue_number, 7);

  // a history: it follows the summary, and the job's earlier comment is updated, not repeated
  fs.writeFileSync(history, '### History on github-ubuntu-24.04: 12 runs, 1 of 2 rows moved in the last 5\n');
  c = client([{ id: 1, body: 'someone else' }, { id: 2, body: '<!-- solve_bench bench cpu -->\nold' },
              { id: 3, body: '<!-- solve_bench bench gpu -->\nold' }]);
  await post(c, 'cpu', summary, history);
  assert.deepStrictEqual(c.calls.map((x) => x[0]), ['update']);
  assert.strictEqual(c.calls[0][1].comment_id, 2);
  text = c.calls[0][1].body;
  assert.ok(text.indexOf('regression gate: passed') < text.indexOf('### History on github-ubuntu-24.04'), text);
  assert.ok(!text.includes('No history'), text);

  // longer than GitHub takes: cut, and says where the rest is
  fs.writeFileSync(summary, 'x'.repeat(70000));
  text = post.body('cpu', summary, history);
  assert.ok(text.length <= 65000 && text.includes('cut at GitHub'), text.length);
  fs.rmSync(dir, { recursive: true });
  console.log('ok: pr-comment.js posts the summary and the history (or says there is none), updates its own');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});

"""Stand-in for `tbprof report --views-out FILE INPUT...` while the binary
under test has no such flag (the views file's C++ writer lands on branch
`views`): runs `tbprof report --html` and takes the same objects out of the
page: the host objects of <script id="tbprof-data">, the distributed section
(<main id="distributed">) and the appendices. Every other command goes to the
real binary unchanged.

  views_standin.py REAL_TBPROF report --views-out FILE [flags] INPUT...
"""

import gzip
import html
import json
import os
import re
import subprocess
import sys
import tempfile

DATA_RE = re.compile(r'<script type="application/json" id="tbprof-data">(.*?)</script>', re.S)
DIST_RE = re.compile(r'<main id="distributed">.*?</main>', re.S)
APPX_RE = re.compile(r'<main class="appendix" id="appendix-([^"]*)" data-title="([^"]*)">'
                     r'<h2>[^<]*</h2>(.*?)</main>', re.S)


def main(argv):
  real, args = argv[1], argv[2:]
  if not (args and args[0] == 'report' and '--views-out' in args):
    os.execv(real, [real] + args)
  i = args.index('--views-out')
  out = args[i + 1]
  rest = args[1:i] + args[i + 2:]
  with tempfile.TemporaryDirectory() as tmp:
    page_path = os.path.join(tmp, 'page.html')
    done = subprocess.run([real, 'report', '--html', page_path] + rest,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
      sys.stderr.write(done.stderr.decode('utf-8', 'replace'))
      return done.returncode
    with open(page_path, encoding='utf-8') as f:
      page = f.read()
  data = json.loads(DATA_RE.search(page).group(1))
  dist = DIST_RE.search(page)
  views = {
      'schema': 'tbprof.views', 'version': 1, 'generator': data.get('generator', ''),
      'source': data.get('source', ''), 'hosts': data['hosts'],
      'distributedHtml': dist.group(0) if dist else '',
      'appendices': [{'key': m.group(1), 'title': html.unescape(m.group(2)), 'html': m.group(3)}
                     for m in APPX_RE.finditer(page)],
      'xprofNote': '',
  }
  tmp_out = out + '.standin-tmp'
  with gzip.open(tmp_out, 'wt', encoding='utf-8') as f:
    json.dump(views, f)
  os.replace(tmp_out, out)
  return 0


if __name__ == '__main__':
  sys.exit(main(sys.argv))

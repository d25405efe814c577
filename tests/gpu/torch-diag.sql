-- tests/gpu/torch-diag.sql: where the main thread's CPU samples of a torch.sh recording fall:
-- per second of the trace, the samples, those with any Python frame, those with a frame of
-- torch_train.py; then the outermost and innermost frames of the samples with no Python frame.
CREATE TEMP TABLE main_tid AS
  SELECT globalTid FROM COMPOSITE_EVENTS
  WHERE globalTid / 16777216 = (SELECT globalPid / 16777216 FROM PROCESSES ORDER BY pid LIMIT 1)
  GROUP BY globalTid ORDER BY COUNT(*) DESC LIMIT 1;
CREATE TEMP TABLE py_chain AS
  SELECT DISTINCT c.id FROM SAMPLING_CALLCHAINS c JOIN StringIds m ON m.id = c.module
  WHERE m.value LIKE '%.py:%';
CREATE TEMP TABLE tt_chain AS
  SELECT DISTINCT c.id FROM SAMPLING_CALLCHAINS c JOIN StringIds m ON m.id = c.module
  WHERE m.value LIKE '%torch_train.py:%';
SELECT 'second', 'samples', 'with python', 'with torch_train.py';
SELECT (e.start - (SELECT MIN(start) FROM COMPOSITE_EVENTS)) / 1000000000 AS s, COUNT(*),
       SUM(e.id IN py_chain), SUM(e.id IN tt_chain)
FROM COMPOSITE_EVENTS e WHERE e.globalTid = (SELECT globalTid FROM main_tid) GROUP BY s;
SELECT 'outermost frame of samples with no Python frame';
SELECT COUNT(*) AS n, s.value, m.value FROM COMPOSITE_EVENTS e
  JOIN SAMPLING_CALLCHAINS c ON c.id = e.id
   AND c.stackDepth = (SELECT MAX(stackDepth) FROM SAMPLING_CALLCHAINS WHERE id = e.id)
  JOIN StringIds s ON s.id = c.symbol JOIN StringIds m ON m.id = c.module
WHERE e.globalTid = (SELECT globalTid FROM main_tid) AND e.id NOT IN py_chain
GROUP BY s.value, m.value ORDER BY n DESC LIMIT 12;
SELECT 'innermost frame of samples with no Python frame';
SELECT COUNT(*) AS n, s.value, m.value FROM COMPOSITE_EVENTS e
  JOIN SAMPLING_CALLCHAINS c ON c.id = e.id AND c.stackDepth = 0
  JOIN StringIds s ON s.id = c.symbol JOIN StringIds m ON m.id = c.module
WHERE e.globalTid = (SELECT globalTid FROM main_tid) AND e.id NOT IN py_chain
GROUP BY s.value, m.value ORDER BY n DESC LIMIT 12;
SELECT 'outermost Python frame of samples with Python but no torch_train.py';
SELECT COUNT(*) AS n, s.value, m.value FROM COMPOSITE_EVENTS e
  JOIN SAMPLING_CALLCHAINS c ON c.id = e.id
   AND c.stackDepth = (SELECT MAX(c2.stackDepth) FROM SAMPLING_CALLCHAINS c2 JOIN StringIds m2 ON m2.id = c2.module
                       WHERE c2.id = e.id AND m2.value LIKE '%.py:%')
  JOIN StringIds s ON s.id = c.symbol JOIN StringIds m ON m.id = c.module
WHERE e.globalTid = (SELECT globalTid FROM main_tid) AND e.id IN py_chain AND e.id NOT IN tt_chain
GROUP BY s.value, m.value ORDER BY n DESC LIMIT 12;
SELECT 'NVTX rows', COUNT(*), SUM(text IS NOT NULL), SUM(textId IS NOT NULL) FROM NVTX_EVENTS;

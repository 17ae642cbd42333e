#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Copies a profile seed of the previous format version into the current one
# (format 3: accounting.unsampled_ns, the notice table): the same rows,
# unsampled_ns 0.  usage: upgrade_profile_seed.py OLD.cpcprof NEW.cpcprof
import sqlite3, sys, shutil, os
src, dst = sys.argv[1], sys.argv[2]
old = sqlite3.connect(src)
old.text_factory = bytes
if os.path.exists(dst): os.remove(dst)
new = sqlite3.connect(dst)
new.text_factory = bytes
new.execute("PRAGMA page_size = 1024")
new.execute("PRAGMA application_id = 1129333584")
new.execute("PRAGMA user_version = 3")
rows = [(a.decode(), b.decode(), c.decode()) for a,b,c in old.execute("SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid").fetchall()]
tables = []
for typ, name, sql in rows:
    if name == 'accounting':
        sql = sql.replace("dropped INTEGER NOT NULL)", "dropped INTEGER NOT NULL, unsampled_ns INTEGER NOT NULL)")
    new.execute(sql)
    if typ == 'table':
        tables.append(name)
        if name == 'accounting':
            new.execute("CREATE TABLE notice(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, time_ns INTEGER NOT NULL, text TEXT NOT NULL)")
for t in tables:
    cols = [r[1].decode() if isinstance(r[1], bytes) else r[1] for r in old.execute(f"PRAGMA table_info({t})")]
    data = old.execute(f"SELECT * FROM {t}").fetchall()
    if t == 'accounting':
        data = [tuple(r) + (0,) for r in data]
        cols = cols + ['unsampled_ns']
    ph = ",".join("?" * len(cols))
    new.executemany(f"INSERT INTO {t}({','.join(cols)}) VALUES ({ph})", data)
new.commit()
new.execute("VACUUM")
new.close()

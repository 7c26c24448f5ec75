-- AG2 / AutoGen 0.2 runtime_logging.start(logger_type="sqlite", config={"dbname": "logs.db"}) tables (schema from autogen/logger/sqlite_logger.py, 0.2 branch).
-- Agent = source_name; content = request/response JSON (chat_completions) or json_state (events); order = id / start_time / timestamp.
CREATE TABLE chat_completions(id INTEGER PRIMARY KEY, invocation_id TEXT, client_id INTEGER, wrapper_id INTEGER, session_id TEXT,
  source_name TEXT, request TEXT, response TEXT, is_cached INEGER, cost REAL, start_time DATETIME DEFAULT CURRENT_TIMESTAMP, end_time DATETIME DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE agents(id INTEGER PRIMARY KEY, agent_id INTEGER, wrapper_id INTEGER, session_id TEXT, name TEXT, class TEXT, init_args TEXT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP, UNIQUE(agent_id,

# Rails 7.1's SQLite production settings, backported so the peer fails no request for a lock a current Rails would
# have waited for, and commits as Gatehouse's SQLite store does (what a Rails 6.1 shop on SQLite ends up adding):
# - transactions begin IMMEDIATE, not DEFERRED: one that reads then writes (Doorkeeper's refresh: lock!, revoke,
#   insert) otherwise gets SQLITE_BUSY at once while the other puma worker writes, as SQLite never waits to upgrade
#   a read lock;
# - waiting for the lock sleeps in Ruby: sqlite3 1.4's busy timeout waits inside C holding the GVL, so one thread
#   waiting stalls every thread of its worker, including the one holding the lock (sqlite3 2.x's
#   busy_handler_timeout, which Rails 7.1+ uses, is this same 1 ms sleep loop);
# - synchronous=NORMAL in WAL mode (no fsync per commit), as Rails 7.1 and Gatehouse set; WAL itself is set by
#   bin/seed and kept in the database file.
ActiveSupport.on_load(:active_record) do
  require "active_record/connection_adapters/sqlite3_adapter"
  ActiveRecord::ConnectionAdapters::SQLite3Adapter.prepend(Module.new do
    def begin_db_transaction
      log("begin immediate transaction", "TRANSACTION") { @connection.transaction(:immediate) }
    end

    def configure_connection
      super
      @connection.execute("PRAGMA synchronous=NORMAL")
      timeout = (@config[:timeout] || 5000).to_f / 1000
      @connection.busy_handler do |count|
        next false if count * 0.001 > timeout
        sleep 0.001
        true
      end
    end
  end)
end

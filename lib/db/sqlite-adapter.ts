import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';

type Adapter = Awaited<ReturnType<PrismaBetterSqlite3['connect']>>;
type Transaction = Awaited<ReturnType<Adapter['startTransaction']>>;

/**
 * The better-sqlite3 driver adapter holds ONE connection. Its interactive transactions take turns
 * through a mutex, but a query outside a transaction does not wait for them: issued while another
 * request's transaction is open, it runs inside that transaction and is undone with it when it
 * rolls back (lib/db/shared-connection.test.ts: a raw idempotency claim and a raw chunk claim were
 * lost that way). Here a query outside a transaction waits until no transaction is open or
 * starting, so it commits on its own.
 */
export class SerializedSqliteAdapter extends PrismaBetterSqlite3 {
  override async connect(): Promise<Adapter> {
    return serialize(await super.connect());
  }
}

function serialize(adapter: Adapter): Adapter {
  let open = 0;
  let idle: Promise<void> = Promise.resolve();
  let wake: () => void = () => {};
  const enter = () => {
    if (open++ === 0) idle = new Promise((resolve) => (wake = resolve));
  };
  const leave = () => {
    if (--open === 0) wake();
  };
  const outside = async () => {
    while (open > 0) await idle;
  };
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => {
    // counted from before the adapter's own mutex, so no outside query slips in between BEGIN and here
    enter();
    let transaction: Transaction;
    try {
      transaction = await startTransaction(isolationLevel);
    } catch (error) {
      leave();
      throw error;
    }
    const commit = transaction.commit.bind(transaction);
    const rollback = transaction.rollback.bind(transaction);
    let ended = false;
    const end = () => {
      if (!ended) leave();
      ended = true;
    };
    transaction.commit = async () => {
      try {
        return await commit();
      } finally {
        end();
      }
    };
    transaction.rollback = async () => {
      try {
        return await rollback();
      } finally {
        end();
      }
    };
    return transaction;
  };
  const queryRaw = adapter.queryRaw.bind(adapter);
  const executeRaw = adapter.executeRaw.bind(adapter);
  adapter.queryRaw = async (query) => {
    await outside();
    return queryRaw(query);
  };
  adapter.executeRaw = async (query) => {
    await outside();
    return executeRaw(query);
  };
  return adapter;
}

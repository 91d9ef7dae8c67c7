//! PostgreSQL reads of one text by key, sent together: the reads that
//! arrive while others are on their way to the database go out in the next
//! statement, one round trip and one statement for all of them.
//!
//! A GET by key cost PostgreSQL about 57 µs of CPU and the service about
//! 50, nearly all of it the statement's round trip, not the lookup (D65).
//! One task owns the reader's connections. A read is queued to it; while a
//! connection is free, the task sends every queued read of the same kind
//! as one statement (`KeyRead::many`; `KeyRead::one` for a read alone,
//! cheaper for the server) and hands each its row. Reads that
//! arrive meanwhile wait for the next free connection: no read waits for a
//! timer, and under load the statements grow instead of multiplying.
//!
//! Nothing is cached: a read goes out in a statement begun after it was
//! queued, so it sees every commit made before it, by this instance or any
//! other. A read the reader cannot answer — closed, its connection lost or
//! failed, no answer within [`PATIENCE`] — is answered `None`, and the
//! caller asks the pool, which reports its own error if there is one.
//!
//! The reader's connections are part of the instance's budget, not added to
//! it: [`split`] takes them from the pool's size.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions as _, Connection as _, Row as _};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::db::is_lost_connection;

/// A read of one stored text by a tenant's key.
#[derive(Debug)]
pub struct KeyRead {
    /// `$1` the tenant, `$2` the key: the text of the key's row, if any.
    pub one: &'static str,
    /// `$1` the tenants, `$2` the keys, as arrays: a row for each key, its
    /// position in the arrays (from 1, a `BIGINT`) and its text (`NULL`
    /// when the key has no row).
    pub many: &'static str,
}

/// How a budget of `max_connections` is shared: the reader's part, then the
/// pool's. Half goes to the reader (8 of the default 16); a budget of 1 is
/// all the pool's, which also reads.
pub fn split(max_connections: u32) -> (usize, u32) {
    let reader = max_connections / 2;
    (reader as usize, max_connections - reader)
}

/// How long a statement (with the connecting, when it needs one) may take
/// before its reads are handed to the pool and its connection dropped: a
/// server that stopped answering must not hold the reader's connections for
/// ever.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// The most reads in one statement.
const MOST_IN_ONE: usize = 256;

/// Connections to one PostgreSQL database for reads by key, opened when
/// first needed and kept for the next statement (see the module's
/// documentation).
#[derive(Debug)]
pub struct BatchedReader {
    messages: mpsc::UnboundedSender<Message>,
    figures: Arc<Figures>,
    most: usize,
}

/// A read's answer: its text, `Some(None)` when the key has no row; `None`
/// when the reader could not answer it (the pool is to be asked).
pub type Answer = Option<Option<Vec<u8>>>;

#[derive(Debug)]
enum Message {
    Read(Read),
    Close(oneshot::Sender<()>),
}

#[derive(Debug)]
struct Read {
    kind: &'static KeyRead,
    tenant: Uuid,
    key: String,
    answer: oneshot::Sender<Answer>,
}

/// What the reader's task says of its connections, for metrics and tests.
#[derive(Debug, Default)]
struct Figures {
    open: AtomicUsize,
    idle: AtomicUsize,
    statements: AtomicUsize,
}

impl BatchedReader {
    /// A reader of the database at `options`, with at most `most`
    /// connections open. Its task runs on the current Tokio runtime until
    /// the reader is closed or dropped.
    pub fn start(options: PgConnectOptions, most: usize) -> BatchedReader {
        BatchedReader::with_patience(options, most, PATIENCE)
    }

    /// [`start`](Self::start), with another time a statement may take.
    fn with_patience(options: PgConnectOptions, most: usize, patience: Duration) -> BatchedReader {
        let (messages, received) = mpsc::unbounded_channel();
        let figures = Arc::new(Figures::default());
        let task = Task {
            options,
            most: most.max(1),
            patience,
            figures: figures.clone(),
        };
        tokio::spawn(task.serve(received));
        BatchedReader {
            messages,
            figures,
            most,
        }
    }

    /// The text of `key`'s row in `kind`'s table, for `tenant`.
    pub async fn text(&self, kind: &'static KeyRead, tenant: Uuid, key: &str) -> Answer {
        let (answer, answered) = oneshot::channel();
        let read = Read {
            kind,
            tenant,
            key: key.to_owned(),
            answer,
        };
        self.messages.send(Message::Read(read)).ok()?;
        answered.await.ok().flatten()
    }

    /// Lets the statements on their way end, closes every connection and
    /// answers the reads still queued `None`; reads from now on are the
    /// pool's (closed too, with the store).
    pub async fn close(&self) {
        let (closed, done) = oneshot::channel();
        if self.messages.send(Message::Close(closed)).is_ok() {
            let _ = done.await;
        }
    }

    /// Connections open, idle, and the most: the pool's figures' part.
    pub fn status(&self) -> (u32, u32, u32) {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        (
            count(self.figures.open.load(Ordering::Relaxed)),
            count(self.figures.idle.load(Ordering::Relaxed)),
            count(self.most),
        )
    }
}

/// The reader's task: queues the reads, sends them while a connection is
/// free, and keeps each connection whose statement was answered.
struct Task {
    options: PgConnectOptions,
    /// The most connections, each with at most one statement on its way.
    most: usize,
    /// How long a statement may take (see [`PATIENCE`]).
    patience: Duration,
    figures: Arc<Figures>,
}

impl Task {
    async fn serve(self, mut messages: mpsc::UnboundedReceiver<Message>) {
        let figures = &self.figures;
        let mut idle: Vec<PgConnection> = Vec::new();
        let mut queued: Vec<Read> = Vec::new();
        let mut sending = FuturesUnordered::new();
        let mut closed: Option<oneshot::Sender<()>> = None;
        // Whether reads may still come: not once closed or dropped.
        let mut listening = true;
        loop {
            while sending.len() < self.most && !queued.is_empty() {
                let reads = take_one_kind(&mut queued);
                if !reads.is_empty() {
                    sending.push(self.send(idle.pop(), reads));
                }
            }
            figures
                .open
                .store(idle.len() + sending.len(), Ordering::Relaxed);
            figures.idle.store(idle.len(), Ordering::Relaxed);
            if !listening && sending.is_empty() {
                break;
            }
            tokio::select! {
                message = messages.recv(), if listening => {
                    // `None`: the reader was dropped, which ends it as a
                    // close does. Every read sent meanwhile goes in the next
                    // statement too.
                    let mut next = message;
                    listening = next.is_some();
                    while let Some(message) = next {
                        match message {
                            Message::Read(read) => queued.push(read),
                            Message::Close(done) => {
                                closed = Some(done);
                                listening = false;
                                break;
                            }
                        }
                        next = messages.try_recv().ok();
                    }
                    if !listening {
                        // Nothing more is sent: the reads queued, and any
                        // still in the channel, are the pool's (their
                        // senders dropped).
                        messages.close();
                        queued.clear();
                    }
                }
                Some(kept) = sending.next(), if !sending.is_empty() => idle.extend(kept),
            }
        }
        for connection in idle {
            // Says goodbye to the server; a connection already lost has
            // nothing to say.
            let _ = connection.close().await;
        }
        figures.open.store(0, Ordering::Relaxed);
        figures.idle.store(0, Ordering::Relaxed);
        if let Some(done) = closed {
            let _ = done.send(());
        }
    }

    /// Sends `reads` as one statement on `connection` (a new one when `None`)
    /// and answers each; the connection back when the statement was answered.
    /// When it was not, every read is answered `None` (by dropping its sender)
    /// and the connection dropped, which closes it.
    async fn send(
        &self,
        connection: Option<PgConnection>,
        reads: Vec<Read>,
    ) -> Option<PgConnection> {
        self.figures.statements.fetch_add(1, Ordering::Relaxed);
        let asked = async {
            let mut connection = match connection {
                Some(connection) => connection,
                None => self.options.connect().await?,
            };
            let texts = match reads.as_slice() {
                // A read alone, the most common under light load: the
                // statement of one key is cheaper for the server.
                [read] => {
                    let row = sqlx::query(read.kind.one)
                        .bind(read.tenant)
                        .bind(read.key.as_str())
                        .fetch_optional(&mut connection)
                        .await?;
                    let text = row.map(|row| row.try_get::<String, _>(0)).transpose()?;
                    vec![(1, text)]
                }
                _ => {
                    let (tenants, keys): (Vec<Uuid>, Vec<&str>) = reads
                        .iter()
                        .map(|read| (read.tenant, read.key.as_str()))
                        .unzip();
                    let rows = sqlx::query(reads[0].kind.many)
                        .bind(tenants)
                        .bind(keys)
                        .fetch_all(&mut connection)
                        .await?;
                    rows.iter()
                        .map(|row| {
                            Ok((
                                row.try_get::<i64, _>(0)?,
                                row.try_get::<Option<String>, _>(1)?,
                            ))
                        })
                        .collect::<Result<Vec<_>, sqlx::Error>>()?
                }
            };
            Ok::<_, sqlx::Error>((connection, texts))
        };
        let (connection, texts) = match tokio::time::timeout(self.patience, asked).await {
            Ok(Ok(answered)) => answered,
            Ok(Err(error)) => {
                if !is_lost_connection(&error) {
                    tracing::warn!(%error, reads = reads.len(), "a batched read failed; the pool answers it");
                }
                return None;
            }
            Err(_) => {
                tracing::warn!(
                    reads = reads.len(),
                    "a batched read had no answer within {:?}; the pool answers it",
                    self.patience
                );
                return None;
            }
        };
        let mut answers: Vec<Option<oneshot::Sender<Answer>>> =
            reads.into_iter().map(|read| Some(read.answer)).collect();
        for (position, text) in texts {
            let answer = usize::try_from(position - 1)
                .ok()
                .and_then(|index| answers.get_mut(index))
                .and_then(Option::take);
            if let Some(answer) = answer {
                let _ = answer.send(Some(text.map(String::into_bytes)));
            }
        }
        // A read the statement gave no row for is the pool's: its sender is
        // dropped here.
        Some(connection)
    }
}

/// The queued reads of the first one's kind (at most [`MOST_IN_ONE`]),
/// leaving the others queued; reads whose caller is gone are dropped.
fn take_one_kind(queued: &mut Vec<Read>) -> Vec<Read> {
    let Some(kind) = queued.first().map(|read| read.kind) else {
        return Vec::new();
    };
    let mut taken = Vec::new();
    let mut left = Vec::new();
    for read in queued.drain(..) {
        if read.answer.is_closed() {
            continue;
        }
        if std::ptr::eq(read.kind, kind) && taken.len() < MOST_IN_ONE {
            taken.push(read);
        } else {
            left.push(read);
        }
    }
    *queued = left;
    taken
}

/// Against the PostgreSQL server of `LFS_TEST_POSTGRES_URL` (or the
/// project's usual local one); under `CI=true` an unreachable server fails
/// them, elsewhere they say so and pass.
#[cfg(test)]
mod tests {
    use std::str::FromStr as _;
    use std::time::Duration;

    use sqlx::postgres::PgConnectOptions;
    use uuid::Uuid;

    use super::{BatchedReader, KeyRead};

    /// A table of texts by tenant and key, dropped with the value.
    struct Table {
        name: String,
        writer: sqlx::PgPool,
        read: &'static KeyRead,
    }

    impl Table {
        async fn new() -> Option<Table> {
            let url = std::env::var("LFS_TEST_POSTGRES_URL")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
            let writer = match sqlx::PgPool::connect(&url).await {
                Ok(writer) => writer,
                Err(error) if std::env::var("CI").is_ok_and(|v| v == "true") => {
                    panic!("PostgreSQL at {url} is unreachable: {error}")
                }
                Err(error) => {
                    eprintln!("skipped: PostgreSQL at {url} is unreachable: {error}");
                    return None;
                }
            };
            let name = format!("lfs_batched_{}", Uuid::new_v4().simple());
            let table = Table {
                read: Table::read(&name),
                name,
                writer,
            };
            table
                .run(format!(
                    "CREATE TABLE {} (tenant_id UUID, reference TEXT, text TEXT, \
                     PRIMARY KEY (tenant_id, reference))",
                    table.name
                ))
                .await;
            Some(table)
        }

        /// The reads of `name`'s texts (leaked: a `KeyRead` is static).
        fn read(name: &str) -> &'static KeyRead {
            let leak = |sql: String| &*Box::leak(sql.into_boxed_str());
            Box::leak(Box::new(KeyRead {
                one: leak(format!(
                    "SELECT text FROM {name} WHERE tenant_id = $1 AND reference = $2"
                )),
                many: leak(format!(
                    "SELECT k.position, (SELECT t.text FROM {name} t \
                     WHERE t.tenant_id = k.tenant_id AND t.reference = k.reference) \
                     FROM unnest($1::uuid[], $2::text[]) \
                     WITH ORDINALITY AS k(tenant_id, reference, position)"
                )),
            }))
        }

        fn options(&self) -> PgConnectOptions {
            (*self.writer.connect_options()).clone()
        }

        async fn run(&self, sql: String) {
            sqlx::query(&sql).execute(&self.writer).await.unwrap();
        }

        async fn put(&self, tenant: Uuid, reference: &str, text: &str) {
            sqlx::query(&format!(
                "INSERT INTO {} VALUES ($1, $2, $3) \
                 ON CONFLICT (tenant_id, reference) DO UPDATE SET text = $3",
                self.name
            ))
            .bind(tenant)
            .bind(reference)
            .bind(text)
            .execute(&self.writer)
            .await
            .unwrap();
        }

        async fn drop_table(self) {
            self.run(format!("DROP TABLE {}", self.name)).await;
            self.writer.close().await;
        }
    }

    fn text(answer: super::Answer) -> Option<String> {
        let bytes = answer.expect("answered by the reader, not left to the pool");
        bytes.map(|bytes| String::from_utf8(bytes).unwrap())
    }

    #[test]
    fn the_budget_is_halved_and_a_budget_of_one_is_the_pools() {
        assert_eq!(super::split(16), (8, 8), "the default");
        assert_eq!(super::split(3), (1, 2), "the pool takes the odd one");
        assert_eq!(super::split(1), (0, 1), "no reader: the pool reads");
        assert_eq!(super::split(0), (0, 0));
    }

    #[tokio::test]
    async fn reads_sent_together_are_answered_each_its_own_in_fewer_statements() {
        let Some(table) = Table::new().await else {
            return;
        };
        let other = Table::new().await.unwrap();
        let (tenant, stranger) = (Uuid::new_v4(), Uuid::new_v4());
        for n in 0..40 {
            table
                .put(tenant, &format!("R-{n}"), &format!("text {n}"))
                .await;
        }
        other.put(tenant, "R-1", "the other table's").await;
        let reader = BatchedReader::start(table.options(), 1);
        let reads = (0..50).map(|n| {
            let reader = &reader;
            let key = format!("R-{n}");
            // Every fifth another tenant's, every seventh the other table's.
            let (kind, tenant) = match n {
                n if n % 7 == 1 => (other.read, tenant),
                n if n % 5 == 0 => (table.read, stranger),
                _ => (table.read, tenant),
            };
            async move { (n, reader.text(kind, tenant, &key).await) }
        });
        for (n, answer) in futures_util::future::join_all(reads).await {
            let expected = match n {
                1 => Some("the other table's".to_owned()),
                n if n % 7 == 1 => None,
                n if n % 5 == 0 || n >= 40 => None,
                n => Some(format!("text {n}")),
            };
            assert_eq!(text(answer), expected, "read {n}");
        }
        let statements = reader.figures.statements.load(super::Ordering::Relaxed);
        assert!(
            (2..=10).contains(&statements),
            "50 reads of two kinds at once, one connection: {statements} statements"
        );
        assert_eq!(reader.status(), (1, 1, 1), "its connection kept");
        reader.close().await;
        other.drop_table().await;
        table.drop_table().await;
    }

    #[tokio::test]
    async fn a_read_sees_what_was_committed_after_its_connection_was_kept() {
        let Some(table) = Table::new().await else {
            return;
        };
        let tenant = Uuid::new_v4();
        let reader = BatchedReader::start(table.options(), 1);
        assert_eq!(text(reader.text(table.read, tenant, "R").await), None);
        table.put(tenant, "R", "before").await;
        assert_eq!(
            text(reader.text(table.read, tenant, "R").await).as_deref(),
            Some("before")
        );
        table.put(tenant, "R", "after").await;
        assert_eq!(
            text(reader.text(table.read, tenant, "R").await).as_deref(),
            Some("after")
        );
        assert_eq!(reader.figures.statements.load(super::Ordering::Relaxed), 3);
        reader.close().await;
        table.drop_table().await;
    }

    #[tokio::test]
    async fn once_closed_it_keeps_nothing_and_leaves_reads_to_the_pool() {
        let Some(table) = Table::new().await else {
            return;
        };
        let tenant = Uuid::new_v4();
        table.put(tenant, "R", "here").await;
        let reader = BatchedReader::start(table.options(), 2);
        assert!(reader.text(table.read, tenant, "R").await.is_some());
        assert_eq!(reader.status(), (1, 1, 2));
        reader.close().await;
        assert_eq!(reader.status(), (0, 0, 2), "its connection closed");
        assert_eq!(reader.text(table.read, tenant, "R").await, None);
        table.drop_table().await;
    }

    #[tokio::test]
    async fn a_failed_statement_leaves_its_reads_to_the_pool_and_drops_its_connection() {
        let Some(table) = Table::new().await else {
            return;
        };
        let broken: &'static KeyRead = Box::leak(Box::new(KeyRead {
            one: "SELECT 1/0",
            many: "SELECT 1/0, 'x'",
        }));
        let reader = BatchedReader::start(table.options(), 1);
        assert_eq!(reader.text(broken, Uuid::new_v4(), "R").await, None);
        assert_eq!(reader.status(), (0, 0, 1));
        // The next statement opens another connection.
        table.put(Uuid::nil(), "R", "here").await;
        assert_eq!(
            text(reader.text(table.read, Uuid::nil(), "R").await).as_deref(),
            Some("here")
        );
        reader.close().await;
        table.drop_table().await;
    }

    #[tokio::test]
    async fn a_server_that_never_answers_has_its_reads_left_to_the_pool_in_time() {
        // A server that takes the connection and never answers it.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = silent.local_addr().unwrap().port();
        let options =
            PgConnectOptions::from_str(&format!("postgres://x@127.0.0.1:{port}/x")).unwrap();
        let reader = BatchedReader::with_patience(options, 1, Duration::from_millis(200));
        let read = Table::read("nowhere");
        let answer =
            tokio::time::timeout(Duration::from_secs(5), reader.text(read, Uuid::nil(), "R"))
                .await
                .expect("the read waited past the reader's patience");
        assert_eq!(answer, None);
        assert_eq!(reader.status(), (0, 0, 1), "nothing kept");
        drop(silent);
    }
}

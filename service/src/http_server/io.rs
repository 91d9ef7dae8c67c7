//! The client's stream as hyper reads and writes it (decisions D28, D29).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::connection::{Phase, Shared};
use super::refusals;

/// The client's stream, as hyper reads and writes it: reads mark the start
/// of a request's head; hyper's empty answers to requests it cannot read are
/// replaced with the API's error body; a write that waits longer than the
/// write timeout for the client to take bytes fails, and hyper closes the
/// connection (a client that stops reading would otherwise hold it, and the
/// answer's memory, for ever).
pub(super) struct Io {
    stream: TcpStream,
    shared: Arc<Shared>,
    /// The error body being written in place of hyper's answer, and how much
    /// of it is written.
    replacement: Option<(Bytes, usize)>,
    write_timeout: Duration,
    /// Runs while a write waits for the client; gone when bytes go out.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Io {
    pub(super) fn new(stream: TcpStream, shared: Arc<Shared>, write_timeout: Duration) -> Io {
        Io {
            stream,
            shared,
            replacement: None,
            write_timeout,
            stalled: None,
        }
    }

    /// `polled`, a write of the stream, unless it has waited for the client
    /// longer than the write timeout: then an error, logged once, on which
    /// hyper closes the connection.
    fn within_write_timeout<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let limit = self.write_timeout;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        if stalled.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        self.stalled = None;
        tracing::warn!(
            write_timeout_ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
            "closed a connection whose client took none of its answer within the write timeout"
        );
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client took none of the answer within the write timeout",
        )))
    }

    /// The client's stream, to answer on it directly.
    pub(super) fn into_stream(self) -> TcpStream {
        self.stream
    }

    /// Writes what is left of the replacement; ready when it is all written.
    fn poll_replacement(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let Some((bytes, written)) = &self.replacement else {
                return Poll::Ready(Ok(()));
            };
            if *written >= bytes.len() {
                self.replacement = None;
                return Poll::Ready(Ok(()));
            }
            let (bytes, from) = (bytes.clone(), *written);
            let polled = Pin::new(&mut self.stream).poll_write(cx, &bytes[from..]);
            let n = ready!(self.within_write_timeout(cx, polled))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            if let Some((_, written)) = &mut self.replacement {
                *written += n;
            }
        }
    }

    /// Takes hyper's answer `buf` in place of writing it, when it is one of
    /// its empty answers to an unreadable request; writes the error body
    /// instead.
    fn replaces(&mut self, buf: &[u8]) -> bool {
        let Some((status, request_id, bytes)) = refusals::replacement(buf) else {
            return false;
        };
        if let Ok(mut replaced) = self.shared.replaced.lock() {
            *replaced = Some((status, request_id));
        }
        self.replacement = Some((bytes, 0));
        true
    }
}

impl AsyncRead for Io {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.stream).poll_read(cx, buf))?;
        if buf.filled().len() > before && self.shared.phase() == Phase::Idle {
            // The next request's first bytes: its header timeout starts.
            self.shared.enter(Phase::Head);
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Io {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_replacement(cx))?;
        if self.replaces(buf) {
            // Taken: written as the replacement, by this call or by flush.
            let _ = self.poll_replacement(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.within_write_timeout(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_replacement(cx))?;
        let mut non_empty = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (non_empty.next(), non_empty.next()) {
            if self.replaces(only) {
                let _ = self.poll_replacement(cx)?;
                return Poll::Ready(Ok(only.len()));
            }
        }
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.within_write_timeout(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_replacement(cx))?;
        let polled = Pin::new(&mut self.stream).poll_flush(cx);
        self.within_write_timeout(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_replacement(cx))?;
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

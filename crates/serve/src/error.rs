//! [`ApiError`]: every refusal of the HTTP interface, as a status and a message. The answer's
//! body is always `{"error": "..."}`, which the page shows as it is.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A request the server refuses, or a fault of its own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} (HTTP {})", status.as_u16())]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What is wrong, and where.
    pub message: String,
}

impl ApiError {
    /// 400: the request is malformed or names something impossible (an illegal move, a bad FEN).
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, message: message.into() }
    }

    /// 404: the thing named does not exist (a game, a run, a checkpoint, a record).
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::NOT_FOUND, message: message.into() }
    }

    /// 409: the request conflicts with the game's state (a move while the engine thinks).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::CONFLICT, message: message.into() }
    }

    /// 500: the server failed (a file it owns that does not read, a thread it cannot start).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, message: message.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(serde_json::json!({ "error": self.message }))).into_response()
    }
}

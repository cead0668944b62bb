//! eval (placeholder)

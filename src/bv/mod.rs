pub mod kdop;

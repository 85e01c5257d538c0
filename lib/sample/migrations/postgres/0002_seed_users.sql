-- The twelve users the sample starts with (ids 1 to 12, in this order), as the in-memory table has them.
insert into users (email) values
  ('alice@example.com'),
  ('bob@example.com'),
  ('carol@example.com'),
  ('dave@example.com'),
  ('erin@example.com'),
  ('frank@example.com'),
  ('grace@example.com'),
  ('heidi@example.com'),
  ('ivan@example.com'),
  ('judy@example.com'),
  ('mallory@example.com'),
  ('niaj@example.com');

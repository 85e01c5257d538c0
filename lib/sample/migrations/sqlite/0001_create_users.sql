-- The sample's users. The unique index is what makes a second POST /users with the same email a 409.
create table users (
  id integer primary key,
  email text not null
);
create unique index users_email_key on users (email);

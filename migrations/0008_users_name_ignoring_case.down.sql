DROP INDEX users_name_lower_key;
